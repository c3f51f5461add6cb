//! The registry's integrity hash (`dist.integrity`, Subresource Integrity: `sha512-<base64>`)
//! and a reader that hashes and counts the download as it streams through.

use std::io::{self, Read};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha512};

/// A sha512 digest: what `dist.integrity` promises.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Sha512Digest(pub(crate) [u8; 64]);

impl Sha512Digest {
    /// The sha512 of an SRI string: its `sha512-` entry (an SRI value may list several hashes,
    /// separated by whitespace, each with `?options`). `None` when it has none: the weaker
    /// `sha1` alone is not accepted.
    pub(crate) fn from_sri(sri: &str) -> Option<Self> {
        sri.split_ascii_whitespace().find_map(|entry| {
            let encoded = entry.strip_prefix("sha512-")?;
            let encoded = encoded.split('?').next().unwrap_or_default();
            let bytes = STANDARD.decode(encoded).ok()?;
            Some(Sha512Digest(bytes.try_into().ok()?))
        })
    }

    /// The digest as SRI writes it, base64 without the `sha512-`.
    pub(crate) fn base64(&self) -> String {
        STANDARD.encode(self.0)
    }
}

/// Everything read through it is hashed and counted, up to a limit; the first read error is
/// kept for the report (the unpacker above sees only its own view of it).
pub(crate) struct HashingReader<R> {
    inner: R,
    hasher: Sha512,
    pub(crate) read: u64,
    limit: u64,
    pub(crate) over_limit: bool,
    pub(crate) error: Option<io::Error>,
}

impl<R: Read> HashingReader<R> {
    pub(crate) fn new(inner: R, limit: u64) -> Self {
        Self {
            inner,
            hasher: Sha512::new(),
            read: 0,
            limit,
            over_limit: false,
            error: None,
        }
    }

    /// Reads what is left to the end, so that the hash covers the whole download.
    pub(crate) fn drain(&mut self) -> io::Result<()> {
        let mut buf = vec![0; 64 * 1024];
        loop {
            match self.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The sha512 of everything read.
    pub(crate) fn digest(self) -> Sha512Digest {
        Sha512Digest(self.hasher.finalize().into())
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(error) = &self.error {
            // The first error again, for a caller that retries.
            return Err(io::Error::new(error.kind(), error.to_string()));
        }
        match self.inner.read(buf) {
            Ok(n) => {
                self.read += n as u64;
                if self.read > self.limit {
                    self.over_limit = true;
                    let error = io::Error::other("the download is larger than the limit");
                    self.error = Some(io::Error::new(error.kind(), error.to_string()));
                    return Err(error);
                }
                self.hasher.update(&buf[..n]);
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                self.error = Some(io::Error::new(e.kind(), e.to_string()));
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sri_sha512_is_read_and_sha1_alone_is_refused() {
        let digest = Sha512::digest(b"abc");
        let sri = format!("sha512-{}", STANDARD.encode(digest));
        assert_eq!(Sha512Digest::from_sri(&sri).unwrap().0, digest.as_slice());
        // Several hashes, options, and the sha512 not first.
        let listed = format!("sha1-AAAA sha512-{}?foo", STANDARD.encode(digest));
        assert_eq!(
            Sha512Digest::from_sri(&listed).unwrap().0,
            digest.as_slice()
        );
        assert!(Sha512Digest::from_sri("sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0=").is_none());
        assert!(Sha512Digest::from_sri("sha512-not base64!").is_none());
        assert!(Sha512Digest::from_sri("sha512-AAAA").is_none(), "too short");
        assert!(Sha512Digest::from_sri("").is_none());
    }

    #[test]
    fn the_reader_hashes_counts_and_stops_at_its_limit() {
        let mut reader = HashingReader::new(&b"abc"[..], 10);
        reader.drain().unwrap();
        assert_eq!(reader.read, 3);
        assert_eq!(reader.digest().0, Sha512::digest(b"abc").as_slice());

        let mut reader = HashingReader::new(&b"0123456789ab"[..], 10);
        assert!(reader.drain().is_err());
        assert!(reader.over_limit);
    }
}

//! Text built at compile time, for the message of a const assertion.

/// Text built at compile time, for a const assertion's message (a const panic can print a
/// `&str` but not format one). Longer text is cut.
pub struct ConstText {
    pub(super) bytes: [u8; 512],
    pub(super) len: usize,
}

impl ConstText {
    /// `text` followed by `more`.
    pub const fn then(mut self, more: &str) -> Self {
        let more = more.as_bytes();
        let mut i = 0;
        while i < more.len() && self.len < self.bytes.len() {
            self.bytes[self.len] = more[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The text followed by `number` in decimal.
    pub const fn then_number(mut self, number: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut count = 0;
        let mut rest = number;
        loop {
            digits[count] = b'0' + (rest % 10) as u8;
            count += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        while count > 0 && self.len < self.bytes.len() {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// The text (cut at a character boundary, should the buffer have been too short).
    pub const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            match core::str::from_utf8(self.bytes.split_at(len).0) {
                Ok(text) => return text,
                Err(_) => len -= 1,
            }
        }
    }
}

//! An incremental reader of a `text/event-stream` body: bytes in, whole frames out. A frame
//! split across chunks, CRLF line ends, comments and a final frame with no blank line after it
//! are all handled; a line that is not UTF-8 is dropped, never a panic.

/// One frame: its `event`, `id` and `data` (data lines joined by `\n`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) event: Option<String>,
    pub(crate) id: Option<String>,
    pub(crate) data: String,
}

/// The reader's state between chunks.
#[derive(Debug, Default)]
pub(crate) struct SseReader {
    pending: Vec<u8>,
    frame: Frame,
    has_data: bool,
    /// Refuses to buffer a line longer than this (a server that never ends its line).
    max_line: usize,
}

impl SseReader {
    pub(crate) fn new() -> SseReader {
        SseReader {
            max_line: 16 * 1024 * 1024,
            ..SseReader::default()
        }
    }

    /// Feeds a chunk; answers the frames it completed. `Err` when a line exceeds the limit.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Frame>, String> {
        self.pending.extend_from_slice(chunk);
        let mut frames = Vec::new();
        let mut start = 0;
        while let Some(offset) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + offset;
            let mut line = &self.pending[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = line.to_vec();
            start = end + 1;
            self.line(&line, &mut frames);
        }
        self.pending.drain(..start);
        if self.pending.len() > self.max_line {
            self.pending.clear();
            return Err("an event-stream line is longer than 16 MiB".into());
        }
        Ok(frames)
    }

    fn line(&mut self, line: &[u8], frames: &mut Vec<Frame>) {
        if line.is_empty() {
            let frame = std::mem::take(&mut self.frame);
            if self.has_data || frame.event.is_some() {
                frames.push(frame);
            }
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let Ok(line) = std::str::from_utf8(line) else {
            tracing::debug!("an event-stream line is not UTF-8; dropped");
            return;
        };
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.frame.event = Some(value.to_owned()),
            "id" => self.frame.id = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.frame.data.push('\n');
                }
                self.frame.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_anywhere_are_put_back_together() {
        let stream = b": keepalive\n\nevent: client_event\r\nid: 3\ndata: {\"a\":\ndata: 1}\n\nevent: x\ndata: y\n\n";
        for split in 0..stream.len() {
            let mut reader = SseReader::new();
            let mut frames = reader.feed(&stream[..split]).unwrap();
            frames.extend(reader.feed(&stream[split..]).unwrap());
            assert_eq!(frames.len(), 2, "split at {split}");
            assert_eq!(frames[0].event.as_deref(), Some("client_event"));
            assert_eq!(frames[0].id.as_deref(), Some("3"));
            assert_eq!(frames[0].data, "{\"a\":\n1}");
            assert_eq!(frames[1].data, "y");
        }
    }

    #[test]
    fn garbage_is_dropped_not_a_panic() {
        let mut reader = SseReader::new();
        let frames = reader
            .feed(b"\xff\xfe\n\ndata\n\nnonsense line\n\n")
            .unwrap();
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].data, "");
    }
}

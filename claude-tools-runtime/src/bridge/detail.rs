//! The rule under which a service's own error text is passed on to the caller: one plain line
//! of at most 1,024 UTF-16 units, with no control or invisible characters and no whitespace
//! other than single ASCII spaces (`CreateSessionFailure::detail`, bridge.d.ts). Anything else
//! is withheld, since the text is untrusted and may end up in a user's terminal.

/// `text` if it may be passed on, else `None`.
pub(crate) fn plain_detail(text: &str) -> Option<String> {
    is_plain_line(text, 1024).then(|| text.to_owned())
}

/// Whether `text` is one plain line of at most `max_units` UTF-16 units.
pub(crate) fn is_plain_line(text: &str, max_units: usize) -> bool {
    if text.encode_utf16().count() > max_units {
        return false;
    }
    if text.starts_with(' ') || text.ends_with(' ') || text.contains("  ") {
        return false;
    }
    text.chars()
        .all(|c| c == ' ' || !(c.is_whitespace() || c.is_control() || is_invisible(c)))
}

/// Format characters and the default-ignorable code points that render as nothing (a reader
/// cannot see them, so they could hide text), and the braille blank.
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x2800 | 0x3164
        | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

/// `text` cut to at most 1,024 UTF-16 units with control and invisible characters removed:
/// how an error message of the host's is sanitised before it goes to claude.ai.
pub(crate) fn sanitize_message(text: &str) -> String {
    let mut out = String::new();
    let mut units = 0;
    for c in text.chars() {
        if c.is_control() || is_invisible(c) || (c.is_whitespace() && c != ' ') {
            continue;
        }
        units += c.len_utf16();
        if units > 1024 {
            break;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_passes_and_anything_else_is_withheld() {
        assert_eq!(
            plain_detail("grouping not found").as_deref(),
            Some("grouping not found")
        );
        assert_eq!(plain_detail("two\nlines"), None);
        assert_eq!(plain_detail("tab\there"), None);
        assert_eq!(plain_detail("double  space"), None);
        assert_eq!(plain_detail(" leading"), None);
        assert_eq!(plain_detail("zero\u{200B}width"), None);
        assert_eq!(plain_detail("\u{1b}[31mred"), None);
        assert_eq!(plain_detail(&"x".repeat(1024)).map(|d| d.len()), Some(1024));
        assert_eq!(plain_detail(&"x".repeat(1025)), None);
        // UTF-16 units, not bytes or chars: 512 emoji are 1,024 units.
        assert!(plain_detail(&"😀".repeat(512)).is_some());
        assert!(plain_detail(&"😀".repeat(513)).is_none());
    }

    #[test]
    fn messages_lose_control_characters_and_are_cut() {
        assert_eq!(sanitize_message("a\nb\u{200B}c"), "abc");
        assert_eq!(sanitize_message(&"y".repeat(5000)).len(), 1024);
    }
}

//! Session and message ids (UUIDs: checked before any path is built from one, made fresh for a
//! fork) and the ISO-8601 timestamps transcripts carry.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Whether `id` is a UUID in its canonical text form (`8-4-4-4-12` hex digits, either case).
/// Nothing else can become part of a path: no `/`, no `..`, no NUL.
pub(crate) fn is_uuid(id: &str) -> bool {
    let bytes = id.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// A fresh random (version 4) UUID, lower case.
pub(crate) fn new_uuid() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a count of days since 1970-01-01 (the inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Parses an ISO-8601 date-time as the CLI writes it (`2026-01-31T12:34:56.789Z`; an offset
/// such as `+02:00` instead of `Z`, and no or any number of fraction digits, are accepted too).
pub(crate) fn parse_timestamp(text: &str) -> Option<SystemTime> {
    fn number(text: &str, range: std::ops::Range<usize>) -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    }
    let bytes = text.as_bytes();
    if bytes.len() < 20
        || bytes[4] != b'-'
        || bytes[7] != b'-'
        || !matches!(bytes[10], b'T' | b't' | b' ')
        || bytes[13] != b':'
        || bytes[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (
        number(text, 0..4)?,
        number(text, 5..7)?,
        number(text, 8..10)?,
    );
    let (hour, minute, second) = (
        number(text, 11..13)?,
        number(text, 14..16)?,
        number(text, 17..19)?,
    );
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    // Leap seconds (`:60`) are folded into the next second.
    if second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut nanos: u64 = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        for (i, b) in fraction.bytes().take(9).take(digits).enumerate() {
            nanos += u64::from(b - b'0') * 10u64.pow(8 - i as u32);
        }
        rest = &fraction[digits..];
    }
    let offset_seconds = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            let (hours, minutes) = match rest.len() {
                6 if rest.as_bytes()[3] == b':' => (number(rest, 1..3)?, number(rest, 4..6)?),
                5 => (number(rest, 1..3)?, number(rest, 3..5)?),
                _ => return None,
            };
            sign * (hours * 3600 + minutes * 60)
        }
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    let seconds = u64::try_from(seconds).ok()?;
    UNIX_EPOCH.checked_add(Duration::new(seconds, nanos as u32))
}

/// `time` as the CLI writes timestamps: UTC, milliseconds, `Z` (JavaScript's `toISOString`).
pub(crate) fn format_timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs() as i64;
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let in_day = seconds.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids() {
        assert!(is_uuid("550e8400-e29b-41d4-a716-446655440000"));
        assert!(is_uuid("550E8400-E29B-41D4-A716-446655440000"));
        for bad in [
            "",
            "550e8400-e29b-41d4-a716-44665544000",
            "550e8400-e29b-41d4-a716-4466554400000",
            "550e8400xe29b-41d4-a716-446655440000",
            "../../../../etc/passwd-0000-0000-000",
            "550e8400-e29b-41d4-a716-44665544000g",
        ] {
            assert!(!is_uuid(bad), "{bad}");
        }
        let fresh = new_uuid().expect("random bytes");
        assert!(is_uuid(&fresh), "{fresh}");
        assert_eq!(&fresh[14..15], "4");
        assert_ne!(fresh, new_uuid().expect("random bytes"));
    }

    #[test]
    fn timestamps_round_trip() {
        let t = parse_timestamp("2026-11-27T08:35:01.123Z").expect("parses");
        assert_eq!(
            t.duration_since(UNIX_EPOCH)
                .expect("after epoch")
                .as_millis(),
            1_795_768_501_123
        );
        assert_eq!(format_timestamp(t), "2026-11-27T08:35:01.123Z");
        assert_eq!(
            parse_timestamp("2026-11-27T10:35:01.123+02:00"),
            Some(t),
            "offsets are applied"
        );
        assert_eq!(
            format_timestamp(parse_timestamp("2000-02-29T00:00:00Z").expect("leap day")),
            "2000-02-29T00:00:00.000Z"
        );
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-11-27T08:35:01",
            "2026-11-27T08:35:01.Z",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }
}

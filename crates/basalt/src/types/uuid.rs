//! UUID: PostgreSQL's 16-byte universally unique identifier — text input and output, and
//! random (version 4) generation for `gen_random_uuid()`.
//!
//! A UUID is its 16 bytes ([`crate::types::Value::Uuid`]); it compares bytewise, which is
//! PostgreSQL's `uuid_cmp` (`memcmp`), so a UUID column sorts and indexes like a 16-byte
//! blob. Output is the canonical lower-case `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. Input
//! follows PostgreSQL's `uuid_in` exactly: 32 hex digits of either case, optionally inside
//! `{}`, with a `-` allowed after any group of four digits (so the canonical form, no
//! hyphens at all, and `a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11` all read); nothing else, not
//! even surrounding spaces (22P02).

use rand::RngCore;

use super::TypeError;

/// Bytes in a UUID.
pub const UUID_BYTES: usize = 16;

/// Parses UUID text as PostgreSQL's `uuid_in` does.
pub fn parse_uuid(text: &str) -> Result<[u8; UUID_BYTES], TypeError> {
    let invalid = || TypeError::InvalidTextRepresentation {
        type_name: "uuid",
        text: text.to_owned(),
    };
    let bytes = text.as_bytes();
    let (braced, mut position) = match bytes.first() {
        Some(b'{') => (true, 1),
        _ => (false, 0),
    };
    let mut uuid = [0u8; UUID_BYTES];
    for (index, byte) in uuid.iter_mut().enumerate() {
        let high = bytes.get(position).and_then(|b| hex_value(*b));
        let low = bytes.get(position + 1).and_then(|b| hex_value(*b));
        let (Some(high), Some(low)) = (high, low) else {
            return Err(invalid());
        };
        *byte = high << 4 | low;
        position += 2;
        // A hyphen may follow any group of four digits (an odd byte), but not the last.
        if index % 2 == 1 && index < UUID_BYTES - 1 && bytes.get(position) == Some(&b'-') {
            position += 1;
        }
    }
    if braced {
        if bytes.get(position) != Some(&b'}') {
            return Err(invalid());
        }
        position += 1;
    }
    if position != bytes.len() {
        return Err(invalid());
    }
    Ok(uuid)
}

fn hex_value(byte: u8) -> Option<u8> {
    char::from(byte)
        .to_digit(16)
        .and_then(|digit| u8::try_from(digit).ok())
}

/// The canonical text form: lower-case hex, hyphens after bytes 4, 6, 8 and 10.
pub fn format_uuid(uuid: &[u8; UUID_BYTES]) -> String {
    let mut out = String::with_capacity(36);
    for (index, byte) in uuid.iter().enumerate() {
        if matches!(index, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// A random version-4 UUID (RFC 9562): 122 random bits from `rand`'s thread-local
/// generator, a cryptographically secure generator seeded from the operating system, with
/// the version and variant bits set.
pub fn random_uuid() -> [u8; UUID_BYTES] {
    let mut uuid = [0u8; UUID_BYTES];
    rand::thread_rng().fill_bytes(&mut uuid);
    uuid[6] = (uuid[6] & 0x0f) | 0x40;
    uuid[8] = (uuid[8] & 0x3f) | 0x80;
    uuid
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";

    #[test]
    fn accepts_postgresql_input_forms() {
        let expected = parse_uuid(CANONICAL).unwrap();
        for text in [
            "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
        ] {
            assert_eq!(parse_uuid(text), Ok(expected), "{text}");
        }
        assert_eq!(format_uuid(&expected), CANONICAL);
    }

    #[test]
    fn rejects_everything_else() {
        for text in [
            "",
            " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
            "a0eeb-c99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
            "é0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ] {
            let error = parse_uuid(text).unwrap_err();
            assert_eq!(error.code(), "22P02", "{text}");
            assert_eq!(
                error.to_string(),
                format!("invalid input syntax for type uuid: \"{text}\"")
            );
        }
    }

    #[test]
    fn random_uuids_are_version_4_and_distinct() {
        let first = random_uuid();
        let second = random_uuid();
        assert_ne!(first, second);
        for uuid in [first, second] {
            let text = format_uuid(&uuid);
            assert_eq!(text.as_bytes()[14], b'4');
            assert!(matches!(text.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
            assert_eq!(parse_uuid(&text), Ok(uuid));
        }
    }
}

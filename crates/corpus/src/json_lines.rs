//! One JSON line → the text and id of a record, reading only those two
//! fields and skipping the rest without building them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A field's value, as far as a record needs it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Field {
    Text(String),
    /// A number, as written.
    Number(String),
    /// Any other JSON type, by name.
    Other(&'static str),
}

/// The fields of a record that are asked for, if present.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Record {
    pub(crate) text: Option<Field>,
    pub(crate) id: Option<Field>,
    pub(crate) extra: Option<Field>,
}

/// Parses `line` as a JSON object and picks `text_field`, `id_field` and
/// `extra_field`.
pub(crate) fn parse(
    line: &str,
    text_field: &str,
    id_field: &str,
    extra_field: Option<&str>,
) -> Result<Record, String> {
    let mut de = serde_json::Deserializer::from_str(line);
    let record = Picker {
        text_field,
        id_field,
        extra_field,
    }
    .deserialize(&mut de)
    .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(record)
}

struct Picker<'a> {
    text_field: &'a str,
    id_field: &'a str,
    extra_field: Option<&'a str>,
}

impl<'de> DeserializeSeed<'de> for Picker<'_> {
    type Value = Record;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Record, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Picker<'_> {
    type Value = Record;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
        let mut record = Record::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            // One field may have several roles (`--keep max:id`).
            let text = key == self.text_field && record.text.is_none();
            let id = key == self.id_field && record.id.is_none();
            let extra = self.extra_field == Some(&*key) && record.extra.is_none();
            if !(text || id || extra) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let value = field(map.next_value::<&'de RawValue>()?)?;
            if extra {
                record.extra = Some(value.clone());
            }
            if id {
                record.id = Some(value.clone());
            }
            if text {
                record.text = Some(value);
            }
        }
        Ok(record)
    }
}

/// Up to eight field names of the JSON object on `line`, for the message
/// about a missing field (read again then, so that the lines that are fine
/// allocate nothing for their names).
pub(crate) fn field_names(line: &str) -> Vec<String> {
    serde_json::from_str::<Names>(line).map_or_else(|_| Vec::new(), |n| n.0)
}

struct Names(Vec<String>);

impl<'de> de::Deserialize<'de> for Names {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Names, D::Error> {
        d.deserialize_map(NamesVisitor)
    }
}

struct NamesVisitor;

impl<'de> Visitor<'de> for NamesVisitor {
    type Value = Names;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Names, A::Error> {
        let mut names = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            map.next_value::<IgnoredAny>()?;
            if names.len() < 8 {
                names.push(key.into_owned());
            }
        }
        Ok(Names(names))
    }
}

/// The field whose JSON text, already validated, is `raw`.
///
/// A string is unescaped here, in one pass into a string of the right size:
/// going through serde_json would build it in a scratch buffer grown from
/// empty for every line, then copy it. `\u` escapes, rare in text, are left
/// to serde_json with the rest of the types.
fn field<E: de::Error>(raw: &RawValue) -> Result<Field, E> {
    let raw = raw.get();
    if let Some(body) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'))
        && let Some(text) = unescape_simple(body)
    {
        return Ok(Field::Text(text));
    }
    FieldSeed
        .deserialize(&mut serde_json::Deserializer::from_str(raw))
        .map_err(E::custom)
}

/// The value of the body of a valid JSON string literal, or `None` when it
/// holds a `\u` escape.
fn unescape_simple(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(&rest[..i]);
        out.push(match rest.as_bytes().get(i + 1)? {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            _ => return None,
        });
        // Both bytes are ASCII, so the rest starts at a character boundary.
        rest = rest.get(i + 2..)?;
    }
    out.push_str(rest);
    Some(out)
}

struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        Ok(Field::Text(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Field, E> {
        Ok(Field::Text(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field, E> {
        Ok(Field::Number(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Field, E> {
        Ok(Field::Number(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Field, E> {
        Ok(Field::Number(v.to_string()))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Field, E> {
        Ok(Field::Other("a boolean"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Field, E> {
        Ok(Field::Other("null"))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Field::Other("an array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Field::Other("an object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_two_fields() {
        let r = parse(
            r#"{"id": 7, "x": [1, {"y": 2}], "text": "a\nb", "score": 2.5}"#,
            "text",
            "id",
            Some("score"),
        )
        .unwrap();
        assert_eq!(r.text, Some(Field::Text("a\nb".into())));
        assert_eq!(r.id, Some(Field::Number("7".into())));
        assert_eq!(r.extra, Some(Field::Number("2.5".into())));
        // A field with two roles fills both.
        let r = parse(r#"{"id": 7, "text": "a"}"#, "text", "id", Some("id")).unwrap();
        assert_eq!(
            (r.id.clone(), r.extra),
            (Some(Field::Number("7".into())), r.id)
        );
        assert_eq!(
            field_names(r#"{"id": 7, "x": [1, {"y": 2}], "text": "a\nb"}"#),
            ["id", "x", "text"]
        );
    }

    #[test]
    fn strings_with_every_escape() {
        for raw in [
            r#""plain""#,
            r#""a\nb\tc\rd\"e\\f\/g\bh\fi""#,
            r#""\u00e9t\u00e9 \ud83d\ude00 \n""#,
            r#""ends with \\""#,
            r#""""#,
        ] {
            let line = format!(r#"{{"text": {raw}}}"#);
            let want: String = serde_json::from_str(raw).unwrap();
            let r = parse(&line, "text", "id", None).unwrap();
            assert_eq!(r.text, Some(Field::Text(want)), "{raw}");
        }
        assert!(parse(r#"{"text": "\ud800 lone"}"#, "text", "id", None).is_err());
    }

    #[test]
    fn other_types_and_errors() {
        let r = parse(r#"{"text": null}"#, "text", "id", None).unwrap();
        assert_eq!(r.text, Some(Field::Other("null")));
        assert!(parse("[1, 2]", "text", "id", None).is_err());
        assert!(parse(r#"{"text": "a"} trailing"#, "text", "id", None).is_err());
        assert!(parse(r#"{"text": "a""#, "text", "id", None).is_err());
    }
}

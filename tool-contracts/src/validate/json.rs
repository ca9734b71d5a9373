//! A JSON value that borrows from the input: what the constraint walk reads. One
//! allocation per array or object; strings without escapes are not copied.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A parsed JSON value, borrowing strings from the raw input where it can.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

/// A JSON number as the parser read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl Number {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Number::Unsigned(n) => n as f64,
            Number::Signed(n) => n as f64,
            Number::Float(n) => n,
        }
    }

    /// Whether it was written as a whole number (`3`, not `3.0` or `3e0`): what serde
    /// accepts for an integer field.
    pub(crate) fn is_integer(self) -> bool {
        !matches!(self, Number::Float(_))
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Unsigned(n) => write!(f, "{n}"),
            Number::Signed(n) => write!(f, "{n}"),
            Number::Float(n) => match serde_json::Number::from_f64(*n) {
                Some(number) => write!(f, "{number}"),
                None => write!(f, "{n}"),
            },
        }
    }
}

impl Json<'_> {
    /// The JSON type's name, with an article: how a message says what was received.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(n) if n.is_integer() => "an integer",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// Compact JSON text, cut after about `limit` characters.
    pub(crate) fn clipped(&self, limit: usize) -> String {
        let mut out = String::new();
        self.write(&mut out, limit);
        clip(out, limit)
    }

    /// Compact JSON text of an array's items, cut after about `limit` characters
    /// (without copying them: the array may be huge).
    pub(crate) fn clipped_items(items: &[Json<'_>], limit: usize) -> String {
        let mut out = String::new();
        write_items(items, &mut out, limit);
        clip(out, limit)
    }

    /// Compact JSON text of an object's fields, cut after about `limit` characters.
    pub(crate) fn clipped_fields(fields: &[(Cow<'_, str>, Json<'_>)], limit: usize) -> String {
        let mut out = String::new();
        write_fields(fields, &mut out, limit);
        clip(out, limit)
    }

    fn write(&self, out: &mut String, limit: usize) {
        // Past the limit nothing more is shown: stop building.
        if out.len() > limit {
            return;
        }
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(&n.to_string()),
            Json::String(s) => {
                // Only the start of a long string is shown, escaped as JSON.
                let head: String = s.chars().take(limit + 1).collect();
                out.push_str(&serde_json::to_string(&head).unwrap_or_default());
            }
            Json::Array(items) => write_items(items, out, limit),
            Json::Object(fields) => write_fields(fields, out, limit),
        }
    }

    /// Structural equality as JSON Schema's `enum`, `const` and `uniqueItems` mean it
    /// (`1` equals `1.0`; object fields in any order).
    pub(crate) fn same_as(&self, other: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, other) {
            (Json::Null, Value::Null) => true,
            (Json::Bool(a), Value::Bool(b)) => a == b,
            (Json::Number(a), Value::Number(b)) => b.as_f64().is_some_and(|b| a.as_f64() == b),
            (Json::String(a), Value::String(b)) => a == b,
            (Json::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.same_as(b)),
            (Json::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k.as_ref()).is_some_and(|w| v.same_as(w)))
            }
            _ => false,
        }
    }

    /// The same as [`same_as`](Self::same_as), between two input values.
    pub(crate) fn equals(&self, other: &Json<'_>) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => a.as_f64() == b.as_f64(),
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.equals(b)),
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.iter().any(|(l, w)| k == l && v.equals(w)))
            }
            _ => false,
        }
    }
}

/// An array's items as compact JSON, up to about `limit` characters of `out`.
fn write_items(items: &[Json<'_>], out: &mut String, limit: usize) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write(out, limit);
        if out.len() > limit {
            return;
        }
    }
    out.push(']');
}

/// An object's fields as compact JSON, up to about `limit` characters of `out`.
fn write_fields(fields: &[(Cow<'_, str>, Json<'_>)], out: &mut String, limit: usize) {
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key.as_ref()).unwrap_or_default());
        out.push(':');
        value.write(out, limit);
        if out.len() > limit {
            return;
        }
    }
    out.push('}');
}

/// `out` cut at about `limit` bytes (on a character boundary), with an ellipsis.
fn clip(mut out: String, limit: usize) -> String {
    if out.len() > limit {
        let mut end = limit;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(Number::Unsigned(n)))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(Number::Signed(n)))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
        Ok(Json::Number(Number::Float(n)))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(4).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(8).min(64));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            fields.push((key.0, map.next_value()?));
        }
        Ok(Json::Object(fields))
    }
}

/// An object key, borrowed where it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The path to the byte at `offset` of a JSON text that may be malformed or too deep
/// to parse (`edits[2].old_string`), as far as it can be told from the text before it.
pub(crate) fn path_at(raw: &[u8], offset: usize) -> String {
    enum Frame {
        Object { key: Option<String> },
        Array { index: usize },
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let end = offset.min(raw.len());
    while i < end {
        match raw[i] {
            b'{' => stack.push(Frame::Object { key: None }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(frame) = stack.last_mut() {
                    match frame {
                        Frame::Array { index } => *index += 1,
                        Frame::Object { key } => *key = None,
                    }
                }
            }
            b'"' => {
                // A string: a key when an object is waiting for one.
                let start = i + 1;
                i += 1;
                while i < raw.len() && raw[i] != b'"' {
                    if raw[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if let Some(Frame::Object { key }) = stack.last_mut()
                    && key.is_none()
                {
                    let text = raw.get(start..i.min(raw.len())).unwrap_or_default();
                    *key = Some(String::from_utf8_lossy(text).into_owned());
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object { key: Some(key) } => super::push_key(&mut path, key),
            Frame::Object { key: None } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// A parsed value handed to a type's `Deserialize`: after the walk has checked it, the
/// type is built from the tree without reading the text again (strings borrowed where
/// the input had no escapes).
impl<'de> serde::de::IntoDeserializer<'de, serde::de::value::Error> for &'de Json<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for &'de Json<'de> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Json::Null => visitor.visit_unit(),
            Json::Bool(b) => visitor.visit_bool(*b),
            Json::Number(Number::Unsigned(n)) => visitor.visit_u64(*n),
            Json::Number(Number::Signed(n)) => visitor.visit_i64(*n),
            Json::Number(Number::Float(n)) => visitor.visit_f64(*n),
            Json::String(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Json::String(Cow::Owned(s)) => visitor.visit_str(s),
            Json::Array(items) => {
                let mut seq = serde::de::value::SeqDeserializer::new(items.iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Json::Object(fields) => {
                let mut map =
                    serde::de::value::MapDeserializer::new(fields.iter().map(|(key, value)| (KeyRef(key), value)));
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Json::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &str, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self {
            // A unit variant by name, or `{"Variant": content}`: as serde_json reads them.
            Json::String(_) => visitor.visit_enum(Variant { name: self, content: None }),
            Json::Object(fields) if fields.len() == 1 => {
                let (key, content) = &fields[0];
                visitor.visit_enum(Variant { name: KeyRef(key), content: Some(content) })
            }
            _ => Err(serde::de::Error::invalid_type(self.unexpected(), &"a string or an object with one key")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

impl Json<'_> {
    fn unexpected(&self) -> serde::de::Unexpected<'_> {
        use serde::de::Unexpected;
        match self {
            Json::Null => Unexpected::Unit,
            Json::Bool(b) => Unexpected::Bool(*b),
            Json::Number(Number::Unsigned(n)) => Unexpected::Unsigned(*n),
            Json::Number(Number::Signed(n)) => Unexpected::Signed(*n),
            Json::Number(Number::Float(n)) => Unexpected::Float(*n),
            Json::String(s) => Unexpected::Str(s),
            Json::Array(_) => Unexpected::Seq,
            Json::Object(_) => Unexpected::Map,
        }
    }
}

/// An object key as a deserializer (borrowed where the input's was).
#[derive(Clone, Copy)]
struct KeyRef<'a>(&'a Cow<'a, str>);

impl<'de> serde::de::IntoDeserializer<'de, serde::de::value::Error> for KeyRef<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for KeyRef<'de> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_str(s),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// An enum's variant: its name, and its content unless it is a unit variant.
struct Variant<'de, N> {
    name: N,
    content: Option<&'de Json<'de>>,
}

impl<'de, N: Deserializer<'de, Error = serde::de::value::Error>> serde::de::EnumAccess<'de> for Variant<'de, N> {
    type Error = serde::de::value::Error;
    type Variant = Content<'de>;

    fn variant_seed<S: serde::de::DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Content<'de>), Self::Error> {
        let name = seed.deserialize(self.name)?;
        Ok((name, Content(self.content)))
    }
}

/// What follows a variant's name.
struct Content<'de>(Option<&'de Json<'de>>);

impl<'de> serde::de::VariantAccess<'de> for Content<'de> {
    type Error = serde::de::value::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        match self.0 {
            None | Some(Json::Null) => Ok(()),
            Some(other) => Err(serde::de::Error::invalid_type(other.unexpected(), &"a unit variant")),
        }
    }

    fn newtype_variant_seed<S: serde::de::DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Self::Error> {
        match self.0 {
            Some(content) => seed.deserialize(content),
            None => Err(serde::de::Error::invalid_type(serde::de::Unexpected::UnitVariant, &"a newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Some(content) => content.deserialize_any(visitor),
            None => Err(serde::de::Error::invalid_type(serde::de::Unexpected::UnitVariant, &"a tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Some(content) => content.deserialize_any(visitor),
            None => Err(serde::de::Error::invalid_type(serde::de::Unexpected::UnitVariant, &"a struct variant")),
        }
    }
}

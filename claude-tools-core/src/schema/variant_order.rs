//! The declaration order of the enums inside a type, read from its `Deserialize` impl.
//!
//! schemars writes a unit enum whose variants are only partly documented as a `oneOf` with the
//! undocumented variants grouped first, so its schema alone no longer says in which order the
//! variants were declared. serde's derive hands `deserialize_enum` the variant names in
//! declaration order (the wire names, after `rename`/`rename_all`, then aliases). [`probe`] drives
//! a type's `Deserialize` impl with a deserializer that records those lists and otherwise feeds
//! the impl the smallest input it accepts (the first variant of each enum, one element of each
//! sequence and map, `Some` for each option), so the enums nested in fields, sequences, maps and
//! options are found too.
//!
//! A custom impl that rejects that input (a `Uuid` from an empty string, a `deserialize_with`)
//! stops the walk at that point: the walk is then run again without the field that failed, until
//! every field that can be reached has been. The lists found are only used to order values the
//! schema already has; a type whose enums cannot be reached keeps schemars' order.

use serde::de::value::{Error, StrDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};

/// The variant lists of the enums `T` contains, in declaration order.
pub(super) fn probe<T: DeserializeOwned>() -> Vec<&'static [&'static str]> {
    let mut state = State::default();
    // Each failing run adds one field to `skip`, so the loop ends; the bound is a backstop.
    for _ in 0..MAX_RUNS {
        state.failed_at = None;
        state.budget = MAX_VALUES;
        let result = T::deserialize(Probe {
            state: &mut state,
            path: Vec::new(),
        });
        match (result, state.failed_at.take()) {
            (Err(_), Some(path)) if state.budget > 0 && !state.skip.contains(&path) => {
                state.skip.push(path)
            }
            _ => break,
        }
    }
    state.found
}

/// How deep the walk goes: a recursive type through `Option` or `Vec` would never end.
const MAX_DEPTH: usize = 32;
/// How many values one walk may feed: a type that recurses through two fields would otherwise
/// take 2^MAX_DEPTH of them. A walk that runs out stops, keeping what it found.
const MAX_VALUES: usize = 10_000;
const MAX_RUNS: usize = 256;

#[derive(Default)]
struct State {
    found: Vec<&'static [&'static str]>,
    /// Field paths (indexes of struct fields and elements) not to feed again.
    skip: Vec<Vec<usize>>,
    /// The innermost field whose value failed in this run.
    failed_at: Option<Vec<usize>>,
    /// Values this run may still feed.
    budget: usize,
}

struct Probe<'a> {
    state: &'a mut State,
    path: Vec<usize>,
}

impl Probe<'_> {
    fn child(&mut self, index: usize) -> Result<Probe<'_>, Error> {
        if self.path.len() >= MAX_DEPTH || self.state.budget == 0 {
            return Err(de::Error::custom("too deep or too large"));
        }
        self.state.budget -= 1;
        let mut path = self.path.clone();
        path.push(index);
        Ok(Probe {
            state: self.state,
            path,
        })
    }

    /// Feeds `seed` the value at child `index`, remembering the field when it fails first.
    fn feed<'de, S: DeserializeSeed<'de>>(
        &mut self,
        index: usize,
        seed: S,
    ) -> Result<S::Value, Error> {
        let child = self.child(index)?;
        let path = child.path.clone();
        let result = seed.deserialize(child);
        if result.is_err() && self.state.failed_at.is_none() {
            self.state.failed_at = Some(path);
        }
        result
    }

    fn skipped(&self, index: usize) -> bool {
        let mut path = self.path.clone();
        path.push(index);
        self.state.skip.contains(&path)
    }
}

macro_rules! leaf {
    ($($method:ident => $visit:ident($($value:expr)?)),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.$visit($($value)?)
        }
    )*};
}

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = Error;

    leaf! {
        deserialize_any => visit_unit(),
        deserialize_bool => visit_bool(false),
        deserialize_i8 => visit_i8(0),
        deserialize_i16 => visit_i16(0),
        deserialize_i32 => visit_i32(0),
        deserialize_i64 => visit_i64(0),
        deserialize_i128 => visit_i128(0),
        deserialize_u8 => visit_u8(0),
        deserialize_u16 => visit_u16(0),
        deserialize_u32 => visit_u32(0),
        deserialize_u64 => visit_u64(0),
        deserialize_u128 => visit_u128(0),
        deserialize_f32 => visit_f32(0.0),
        deserialize_f64 => visit_f64(0.0),
        deserialize_char => visit_char('a'),
        deserialize_str => visit_str(""),
        deserialize_string => visit_str(""),
        deserialize_bytes => visit_bytes(&[]),
        deserialize_byte_buf => visit_bytes(&[]),
        deserialize_unit => visit_unit(),
        deserialize_identifier => visit_str(""),
        deserialize_ignored_any => visit_unit(),
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(Elements {
            probe: self,
            next: 0,
            len: 1,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(Elements {
            probe: self,
            next: 0,
            len,
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_map(Entries {
            probe: self,
            keys: Keys::One,
            next: 0,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_map(Entries {
            probe: self,
            keys: Keys::Fields(fields),
            next: 0,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if !self.state.found.contains(&variants) {
            self.state.found.push(variants);
        }
        match variants.first() {
            Some(first) => visitor.visit_enum(Variant {
                probe: self,
                name: first,
            }),
            None => Err(de::Error::custom("an enum without variants")),
        }
    }
}

/// One element per sequence (`len` for a tuple).
struct Elements<'a> {
    probe: Probe<'a>,
    next: usize,
    len: usize,
}

impl<'de> SeqAccess<'de> for Elements<'_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.next == self.len || self.probe.skipped(self.next) {
            return Ok(None);
        }
        let index = self.next;
        self.next += 1;
        self.probe.feed(index, seed).map(Some)
    }
}

enum Keys {
    /// A struct: each field by name.
    Fields(&'static [&'static str]),
    /// A map: one entry, its key probed like any value.
    One,
}

struct Entries<'a> {
    probe: Probe<'a>,
    keys: Keys,
    next: usize,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.keys {
            Keys::Fields(fields) => {
                while self.next < fields.len() && self.probe.skipped(self.next) {
                    self.next += 1;
                }
                let Some(field) = fields.get(self.next) else {
                    return Ok(None);
                };
                let key: StrDeserializer<'_, Error> = field.into_deserializer();
                seed.deserialize(key).map(Some)
            }
            Keys::One if self.next == 0 && !self.probe.skipped(0) && !self.probe.skipped(1) => {
                // Keys sit at odd indexes, values at even ones, so both can be skipped.
                self.probe.feed(1, seed).map(Some)
            }
            Keys::One => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let index = self.next;
        self.next += 1;
        match self.keys {
            Keys::Fields(_) => self.probe.feed(index, seed),
            Keys::One => self.probe.feed(0, seed),
        }
    }
}

/// The first variant of an enum, its content probed.
struct Variant<'a> {
    probe: Probe<'a>,
    name: &'static str,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = Error;
    type Variant = Probe<'a>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Probe<'a>), Error> {
        let name: StrDeserializer<'_, Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, self.probe))
    }
}

impl<'de> VariantAccess<'de> for Probe<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_struct("", fields, visitor)
    }
}

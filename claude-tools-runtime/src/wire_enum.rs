//! String unions of the wire (`"success" | "error" | …`) as Rust enums that never fail to
//! read: a value a newer CLI adds is kept as the enum's `Other(String)`, so a message or hook
//! input carrying it still parses, and is written back as it came.

/// Declares such an enum: each variant with its wire value, plus `Other(String)`; with
/// `from_wire`, `as_str`, `Display`, `From<&str>` and string (de)serialization.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $wire:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        $vis enum $name {
            $($(#[$variant_meta])* $variant,)*
            /// A value this library does not know (from a newer CLI), as it was written.
            Other(::std::string::String),
        }

        impl $name {
            /// Reads a wire value; one this library does not know is kept as `Other`.
            pub fn from_wire(value: &str) -> Self {
                match value {
                    $($wire => Self::$variant,)*
                    other => Self::Other(other.to_owned()),
                }
            }

            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $wire,)*
                    Self::Other(other) => other,
                }
            }
        }

        impl ::std::convert::From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::from_wire(value)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::from_wire(&value))
            }
        }
    };
}

pub(crate) use wire_enum;

//! Errors that name the claude-tools feature a type of another crate needs.
//!
//! schemars implements `JsonSchema` for chrono's, uuid's, url's… types behind features, and the
//! types deserialize only with their crate's `serde` feature; claude-tools' feature of the same
//! name turns both on. Without it, a `Uuid` parameter would be told to derive `JsonSchema`, which
//! cannot be done for another crate's type. `#[tool]` guesses from a parameter type's words which
//! feature it needs (`uuid::Uuid`, `Option<NaiveDate>`) and hands its [`Slot`] the feature's
//! [`hint`] type; a hinted slot's fallback methods (levels 4 and 5 of the dispatch) demand the
//! feature's trait, whose diagnostic names the feature. claude-tools' `#[derive(JsonSchema)]`
//! does the same for a struct's fields, through [`FieldProbe`] and [`SchemaFns`].
//!
//! A guess only picks the wording of an error: a type with a schema goes through levels 1 to 3
//! whatever it is called, and the diagnostic still says what a type of one's own needs.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;

use super::diagnostics::{ArgumentSchema, ModelArgument};
use super::dispatch::{Slot, ViaRequiredArgument};
use super::param::Param;

/// The features `#[tool]` and the derive name in a [`Hinted`] (the `H` of a [`Slot`] or a
/// [`FieldProbe`]): one type per claude-tools feature.
#[allow(non_camel_case_types)]
pub mod hint {
    macro_rules! hints {
        ($($feature:ident),*) => {$(
            #[doc = concat!("claude-tools' `", stringify!($feature), "` feature.")]
            pub enum $feature {}
            impl super::FeatureHint for $feature {}
        )*};
    }
    hints!(
        chrono,
        uuid,
        url,
        bytes,
        indexmap,
        smallvec,
        rust_decimal,
        bigdecimal,
        semver,
        either,
        arrayvec,
        jiff
    );
}

/// Implemented by the [`hint`] types.
pub trait FeatureHint {}

/// The `H` of a [`Slot`] whose type `#[tool]` connects to feature `F` through the type `X` in it
/// (the `DateTime<Utc>` of an `Option<DateTime<Utc>>`): the error is about `X`, the type at
/// fault, which is what lets its diagnostic be the feature's.
pub struct Hinted<F, X: ?Sized>(PhantomData<F>, PhantomData<fn() -> X>);

impl<T, F: FeatureHint, X: ?Sized> Slot<T, Hinted<F, X>> {
    /// The slot of `T`, whose type `#[tool]` connects to feature `F`.
    pub const HINTED: Self = Slot(PhantomData);
}

/// The `JsonSchema` fns of a type, as a value: what stands in for a struct field's type that
/// claude-tools' `#[derive(JsonSchema)]` connects to a feature. The derive hands schemars' a
/// type of its own for the field (`#[schemars(with = ..)]`), which always implements
/// `JsonSchema`, through these fns of the field's type: so schemars' code never fails, and the
/// one error, when the field's type has no schema, is [`FieldProbe`]'s, naming the feature.
#[derive(Clone, Copy)]
pub struct SchemaFns {
    /// `JsonSchema::inline_schema`.
    pub inline_schema: fn() -> bool,
    /// `JsonSchema::schema_name`.
    pub schema_name: fn() -> Cow<'static, str>,
    /// `JsonSchema::schema_id`.
    pub schema_id: fn() -> Cow<'static, str>,
    /// `JsonSchema::json_schema`.
    pub json_schema: fn(&mut SchemaGenerator) -> Schema,
    /// schemars' hidden `_schemars_private_non_optional_json_schema`.
    pub non_optional_json_schema: fn(&mut SchemaGenerator) -> Schema,
    /// schemars' hidden `_schemars_private_is_option`.
    pub is_option: fn() -> bool,
}

/// The [`SchemaFns`] of field type `T`, whose type `#[derive(JsonSchema)]` connects to the
/// feature of `H` (a [`Hinted`]): `(&&FieldProbe::<T, H>::NEW).__ct_schema_fns()` is `T`'s own
/// fns when `T` has a schema ([`ViaFieldSchema`]), and otherwise the feature's inherent method,
/// whose bound fails with the feature's diagnostic.
pub struct FieldProbe<T: ?Sized, H>(PhantomData<fn() -> H>, PhantomData<fn() -> T>);

impl<T: ?Sized, H> FieldProbe<T, H> {
    /// The probe of `T`.
    pub const NEW: Self = FieldProbe(PhantomData, PhantomData);
}

/// What a field type must be besides the type at fault in it: described by a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON Schema",
    label = "the model needs a schema to fill in this field",
    note = "add #[derive(JsonSchema)] (claude_tools::JsonSchema, in the prelude) to the types in it"
)]
pub trait FieldSchema: JsonSchema {}

impl<T: JsonSchema + ?Sized> FieldSchema for T {}

/// The fns of a field type that has a schema.
pub trait ViaFieldSchema {
    /// The fns.
    fn __ct_schema_fns(&self) -> SchemaFns;
}

impl<T: JsonSchema + ?Sized, H> ViaFieldSchema for &FieldProbe<T, H> {
    fn __ct_schema_fns(&self) -> SchemaFns {
        SchemaFns {
            inline_schema: T::inline_schema,
            schema_name: T::schema_name,
            schema_id: T::schema_id,
            json_schema: T::json_schema,
            non_optional_json_schema: T::_schemars_private_non_optional_json_schema,
            is_option: T::_schemars_private_is_option,
        }
    }
}

macro_rules! feature {
    (
        $feature:ident, $Parameter:ident, $Field:ident,
        param: $param_message:literal, $param_label:literal,
        field: $field_message:literal, $field_label:literal,
        enable: $enable:literal
    ) => {
        #[doc = concat!(
            "What a parameter whose type looks like one of `", stringify!($feature),
            "`'s must be (see the module docs)."
        )]
        #[diagnostic::on_unimplemented(
            message = $param_message,
            label = $param_label,
            note = $enable,
            note = "if `{Self}` is a type of your own, add #[derive(Deserialize, JsonSchema)] to it (both derives are in claude_tools::prelude)"
        )]
        pub trait $Parameter: DeserializeOwned + JsonSchema {}

        impl<T: DeserializeOwned + JsonSchema> $Parameter for T {}

        #[doc = concat!(
            "What a struct field whose type looks like one of `", stringify!($feature),
            "`'s must be (see the module docs)."
        )]
        #[diagnostic::on_unimplemented(
            message = $field_message,
            label = $field_label,
            note = $enable,
            note = "if `{Self}` is a type of your own, add #[derive(JsonSchema)] to it (claude_tools::JsonSchema, in the prelude)"
        )]
        pub trait $Field: JsonSchema {}

        impl<T: JsonSchema + ?Sized> $Field for T {}

        impl<T, X: ?Sized> Slot<T, Hinted<hint::$feature, X>> {
            /// A parameter whose type has no schema or does not deserialize (levels 1 to 3
            /// take every other). `X` comes first: when it is at fault, `T`'s own bounds fail
            /// for the same reason, and rustc reports that reason once, with `X`'s diagnostic.
            pub fn __ct_param(&self) -> Param<T>
            where
                X: $Parameter,
                T: ModelArgument + ArgumentSchema,
            {
                ViaRequiredArgument::__ct_param(&&Slot::<T>::NEW)
            }

            /// The same, for a parameter with a default or a rename.
            pub fn __ct_argument(&self) -> Param<T>
            where
                X: $Parameter,
                T: ModelArgument + ArgumentSchema,
            {
                ViaRequiredArgument::__ct_argument(&&Slot::<T>::NEW)
            }
        }

        impl<T: ?Sized, X: ?Sized> FieldProbe<T, Hinted<hint::$feature, X>> {
            /// A field type without a schema (one with goes through [`ViaFieldSchema`]). `X`
            /// comes first, as for parameters.
            pub fn __ct_schema_fns(&self) -> SchemaFns
            where
                X: $Field,
                T: FieldSchema,
            {
                ViaFieldSchema::__ct_schema_fns(&&FieldProbe::<T, ()>::NEW)
            }
        }
    };
}

feature! {
    chrono, ChronoParameter, ChronoField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `chrono` feature",
        "chrono's types have a JSON Schema, and deserialize, with claude-tools' `chrono` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `chrono` feature",
        "chrono's types have a JSON Schema with claude-tools' `chrono` feature",
    enable: "turn it on: `cargo add claude-tools --features chrono` (it turns on schemars' `chrono04` and chrono's `serde`)"
}

feature! {
    uuid, UuidParameter, UuidField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `uuid` feature",
        "uuid's `Uuid` has a JSON Schema, and deserializes, with claude-tools' `uuid` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `uuid` feature",
        "uuid's `Uuid` has a JSON Schema with claude-tools' `uuid` feature",
    enable: "turn it on: `cargo add claude-tools --features uuid` (it turns on schemars' `uuid1` and uuid's `serde`)"
}

feature! {
    url, UrlParameter, UrlField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `url` feature",
        "url's `Url` has a JSON Schema, and deserializes, with claude-tools' `url` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `url` feature",
        "url's `Url` has a JSON Schema with claude-tools' `url` feature",
    enable: "turn it on: `cargo add claude-tools --features url` (it turns on schemars' `url2` and url's `serde`)"
}

feature! {
    bytes, BytesParameter, BytesField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `bytes` feature",
        "bytes' types have a JSON Schema, and deserialize, with claude-tools' `bytes` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `bytes` feature",
        "bytes' types have a JSON Schema with claude-tools' `bytes` feature",
    enable: "turn it on: `cargo add claude-tools --features bytes` (it turns on schemars' `bytes1` and bytes' `serde`)"
}

feature! {
    indexmap, IndexmapParameter, IndexmapField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `indexmap` feature",
        "indexmap's types have a JSON Schema, and deserialize, with claude-tools' `indexmap` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `indexmap` feature",
        "indexmap's types have a JSON Schema with claude-tools' `indexmap` feature",
    enable: "turn it on: `cargo add claude-tools --features indexmap` (it turns on schemars' `indexmap2` and indexmap's `serde`)"
}

feature! {
    smallvec, SmallvecParameter, SmallvecField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `smallvec` feature",
        "smallvec's `SmallVec` has a JSON Schema, and deserializes, with claude-tools' `smallvec` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `smallvec` feature",
        "smallvec's `SmallVec` has a JSON Schema with claude-tools' `smallvec` feature",
    enable: "turn it on: `cargo add claude-tools --features smallvec` (it turns on schemars' `smallvec1` and smallvec's `serde`)"
}

feature! {
    rust_decimal, RustDecimalParameter, RustDecimalField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `rust_decimal` feature",
        "rust_decimal's `Decimal` has a JSON Schema, and deserializes, with claude-tools' `rust_decimal` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `rust_decimal` feature",
        "rust_decimal's `Decimal` has a JSON Schema with claude-tools' `rust_decimal` feature",
    enable: "turn it on: `cargo add claude-tools --features rust_decimal` (it turns on schemars' `rust_decimal1` and rust_decimal's `serde`)"
}

feature! {
    bigdecimal, BigdecimalParameter, BigdecimalField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `bigdecimal` feature",
        "bigdecimal's `BigDecimal` has a JSON Schema, and deserializes, with claude-tools' `bigdecimal` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `bigdecimal` feature",
        "bigdecimal's `BigDecimal` has a JSON Schema with claude-tools' `bigdecimal` feature",
    enable: "turn it on: `cargo add claude-tools --features bigdecimal` (it turns on schemars' `bigdecimal04` and bigdecimal's `serde`)"
}

feature! {
    semver, SemverParameter, SemverField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `semver` feature",
        "semver's `Version` has a JSON Schema, and deserializes, with claude-tools' `semver` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `semver` feature",
        "semver's `Version` has a JSON Schema with claude-tools' `semver` feature",
    enable: "turn it on: `cargo add claude-tools --features semver` (it turns on schemars' `semver1` and semver's `serde`)"
}

feature! {
    either, EitherParameter, EitherField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `either` feature",
        "either's `Either` has a JSON Schema, and deserializes, with claude-tools' `either` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `either` feature",
        "either's `Either` has a JSON Schema with claude-tools' `either` feature",
    enable: "turn it on: `cargo add claude-tools --features either` (it turns on schemars' `either1` and either's `serde`)"
}

feature! {
    arrayvec, ArrayvecParameter, ArrayvecField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `arrayvec` feature",
        "arrayvec's types have a JSON Schema, and deserialize, with claude-tools' `arrayvec` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `arrayvec` feature",
        "arrayvec's types have a JSON Schema with claude-tools' `arrayvec` feature",
    enable: "turn it on: `cargo add claude-tools --features arrayvec` (it turns on schemars' `arrayvec07` and arrayvec's `serde`)"
}

feature! {
    jiff, JiffParameter, JiffField,
    param: "`{Self}` cannot be a tool parameter without claude-tools' `jiff` feature",
        "jiff's types have a JSON Schema, and deserialize, with claude-tools' `jiff` feature",
    field: "`{Self}` has no JSON Schema without claude-tools' `jiff` feature",
        "jiff's types have a JSON Schema with claude-tools' `jiff` feature",
    enable: "turn it on: `cargo add claude-tools --features jiff` (it turns on schemars' `jiff02` and jiff's `serde`)"
}

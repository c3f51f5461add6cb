//! Which claude-tools feature a type probably needs, read from its words: `uuid::Uuid`,
//! `Option<NaiveDate>`, `Vec<rust_decimal::Decimal>`.
//!
//! schemars implements `JsonSchema` for other crates' types (chrono, uuid, url…) behind
//! features, which claude-tools' features of the same names turn on. A parameter of such a type
//! in a crate without the feature would get "`Uuid` has no JSON Schema: add
//! #[derive(JsonSchema)]", advice that cannot be followed for a foreign type; a type that looks
//! like one gets an error naming the feature instead. The guess only picks the wording of an
//! error: a type that has a schema compiles whatever it is called, and the error for a type
//! called `Version` that is not semver's still says what a type of one's own needs.

use syn::Type;
use syn::visit::Visit;

/// `(feature, crate names and type names that point at it)`. A crate name matches the first
/// segment of a path (`chrono::NaiveDate`), a type name the last (`NaiveDate`); a crate name
/// wins, so that `jiff::civil::DateTime` is jiff's.
const FEATURES: &[(&str, &[&str], &[&str])] = &[
    (
        "chrono",
        &["chrono"],
        &[
            "NaiveDate",
            "NaiveDateTime",
            "NaiveTime",
            "DateTime",
            "TimeDelta",
            "Weekday",
        ],
    ),
    ("uuid", &["uuid"], &["Uuid"]),
    ("url", &["url"], &["Url"]),
    ("bytes", &["bytes"], &["Bytes", "BytesMut"]),
    ("indexmap", &["indexmap"], &["IndexMap", "IndexSet"]),
    ("smallvec", &["smallvec"], &["SmallVec"]),
    ("rust_decimal", &["rust_decimal"], &["Decimal"]),
    ("bigdecimal", &["bigdecimal"], &["BigDecimal"]),
    ("semver", &["semver"], &["Version"]),
    ("either", &["either"], &["Either"]),
    ("arrayvec", &["arrayvec"], &["ArrayVec", "ArrayString"]),
    ("jiff", &["jiff"], &["Timestamp", "Zoned", "SignedDuration"]),
];

/// The feature `ty` probably needs, and the type in `ty` that needs it: the first path (outside
/// in) that names one of the crates, or else one of their types.
pub(crate) fn feature_of(ty: &Type) -> Option<(&'static str, Type)> {
    #[derive(Default)]
    struct Finder {
        by_crate: Option<(&'static str, Type)>,
        by_type: Option<(&'static str, Type)>,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_path(&mut self, ty: &'ast syn::TypePath) {
            let path = &ty.path;
            let first = path.segments.first().map(|s| s.ident.to_string());
            let last = path.segments.last().map(|s| s.ident.to_string());
            for (feature, crates, types) in FEATURES {
                if ty.qself.is_none()
                    && path.segments.len() > 1
                    && first.as_deref().is_some_and(|f| crates.contains(&f))
                {
                    self.by_crate
                        .get_or_insert_with(|| (feature, Type::Path(ty.clone())));
                }
                if last.as_deref().is_some_and(|l| types.contains(&l)) {
                    self.by_type
                        .get_or_insert_with(|| (feature, Type::Path(ty.clone())));
                }
            }
            syn::visit::visit_type_path(self, ty);
        }
    }
    let mut finder = Finder::default();
    finder.visit_type(ty);
    finder.by_crate.or(finder.by_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feature(ty: &str) -> Option<&'static str> {
        feature_of(&syn::parse_str(ty).unwrap()).map(|(feature, _)| feature)
    }

    #[test]
    fn the_type_at_fault_is_the_one_named() {
        let (feature, inner) =
            feature_of(&syn::parse_str("Option<Vec<chrono::DateTime<Utc>>>").unwrap()).unwrap();
        assert_eq!(feature, "chrono");
        assert_eq!(
            quote::ToTokens::to_token_stream(&inner).to_string(),
            "chrono :: DateTime < Utc >"
        );
    }

    #[test]
    fn a_crate_or_a_type_name_points_at_a_feature() {
        assert_eq!(feature("uuid::Uuid"), Some("uuid"));
        assert_eq!(feature("Uuid"), Some("uuid"));
        assert_eq!(
            feature("Option<chrono::DateTime<chrono::Utc>>"),
            Some("chrono")
        );
        assert_eq!(feature("Vec<NaiveDate>"), Some("chrono"));
        assert_eq!(feature("jiff::civil::DateTime"), Some("jiff"));
        assert_eq!(
            feature("HashMap<String, rust_decimal::Decimal>"),
            Some("rust_decimal")
        );
        assert_eq!(feature("::url::Url"), Some("url"));
        assert_eq!(feature("String"), None);
        assert_eq!(feature("my::Record"), None);
        // A lone `chrono` (a type of one's own of that name) is no crate path.
        assert_eq!(feature("chrono"), None);
    }
}

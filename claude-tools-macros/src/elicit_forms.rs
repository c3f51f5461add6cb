//! The forms a `#[tool]`, `#[prompt]` or `#[resource]` body asks for with `elicit::<T>()`.
//!
//! A form is a flat struct (strings, numbers, booleans, unit enums), which only the type's
//! `JsonSchema` tells for sure, at run time. Two checks come earlier than the question:
//! - a `T` that is syntactically not a struct (a primitive, `String`, `Vec<..>`, `Option<..>`,
//!   a map, a tuple, an array) is a compile error here, at `T`;
//! - any other `T` that the code around the fn can name is handed to the registration, which
//!   records it on the tool's definition, the prompt or the resource (`ToolDefBuilder::elicits`,
//!   `Prompt::elicits`, `Resource::elicits`), so that building the server reports a struct that
//!   is not flat.

use std::collections::HashSet;

use syn::visit::{self, Visit};
use syn::{
    Block, ExprMethodCall, ExprPath, GenericArgument, GenericParam, Ident, Item, Lifetime, Type,
    TypePath, UseTree,
};

use crate::errors::Errors;

/// The `T`s of `elicit::<T>()` in `block` that may be forms and can be named outside it, in the
/// order written, each once. A `T` that cannot be a form is pushed to `errors` instead.
pub(crate) fn find(block: &Block, errors: &mut Errors) -> Vec<Type> {
    let mut locals = Locals::default();
    locals.visit_block(block);
    let mut calls = Calls::default();
    calls.visit_block(block);
    let mut found: Vec<Type> = Vec::new();
    for ty in calls.types {
        if let Some(what) = not_a_form(&ty) {
            errors.push(not_a_form_error(&ty, what));
        } else if !locals.names_something_in(&ty) && !found.contains(&ty) {
            found.push(ty);
        }
    }
    found
}

/// The turbofish types of `elicit` calls: `x.elicit::<T>(..)` and `Path::elicit::<T>(..)`.
#[derive(Default)]
struct Calls {
    types: Vec<Type>,
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        if call.method == "elicit"
            && let Some(turbofish) = &call.turbofish
            && let Some(ty) = last_type(turbofish.args.iter())
        {
            self.types.push(ty.clone());
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_path(&mut self, path: &'ast ExprPath) {
        if let Some(last) = path.path.segments.last()
            && last.ident == "elicit"
            && let syn::PathArguments::AngleBracketed(args) = &last.arguments
            && let Some(ty) = last_type(args.args.iter())
        {
            self.types.push(ty.clone());
        }
        visit::visit_expr_path(self, path);
    }
}

/// The last type among generic arguments (`elicit`'s `T`, after any lifetime).
fn last_type<'a>(args: impl Iterator<Item = &'a GenericArgument>) -> Option<&'a Type> {
    args.filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
    .last()
}

/// What `ty` is, when its syntax alone shows it is not a struct and so cannot be a form.
fn not_a_form(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Paren(inner) => not_a_form(&inner.elem),
        Type::Group(inner) => not_a_form(&inner.elem),
        Type::Tuple(tuple) if tuple.elems.is_empty() => Some("the unit type"),
        Type::Tuple(_) => Some("a tuple"),
        Type::Array(_) | Type::Slice(_) => Some("a list"),
        Type::Path(TypePath { qself: None, path }) => {
            let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
            let (last, leading) = segments.split_last()?;
            // `Vec` or `std::vec::Vec`, not `my_crate::Vec`: only the paths of std and
            // serde_json are known not to be structs.
            let known_prefix = [
                "std",
                "core",
                "alloc",
                "collections",
                "string",
                "vec",
                "option",
            ];
            let std_path = leading
                .iter()
                .all(|segment| known_prefix.iter().any(|known| segment.ident == known));
            let serde_json_path = matches!(leading, [first] if first.ident == "serde_json");
            let name = last.ident.to_string();
            if serde_json_path {
                return matches!(name.as_str(), "Value" | "Map").then_some("any JSON value");
            }
            if !std_path {
                return None;
            }
            match name.as_str() {
                "bool" => Some("a boolean"),
                "char" | "str" | "String" => Some("a string"),
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
                | "u128" | "usize" | "f32" | "f64" => Some("a number"),
                "Vec" | "VecDeque" | "LinkedList" => Some("a list"),
                "HashSet" | "BTreeSet" => Some("a set"),
                "HashMap" | "BTreeMap" => Some("a map"),
                "Option" => Some("an `Option`"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The compile error at `ty`: what a form is, and how to ask for this value in one.
fn not_a_form_error(ty: &Type, what: &str) -> syn::Error {
    let written = quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("< ", "<")
        .replace(" ,", ",");
    let fix = if what == "an `Option`" {
        "a form cannot be optional, its fields can: ask for the struct itself and make its \
         fields `Option`s (a declined or cancelled form is `Elicitation::Declined` or \
         `Cancelled` already)"
    } else {
        "wrap the value in a struct, e.g. `#[derive(Deserialize, JsonSchema)] struct Answer { \
         value: String }`, ask for `elicit::<Answer>()` and read its field"
    };
    syn::Error::new_spanned(
        ty,
        format!(
            "`{written}` cannot be an elicitation form: it is {what}, and a form is a flat \
             struct whose fields are strings, numbers, booleans, unit enums or lists of unit \
             enums; {fix}"
        ),
    )
}

/// The names a fn body declares for itself (its items, `use`s, nested generics): a form type
/// written with one of them cannot be named by the registration, outside the body.
#[derive(Default)]
struct Locals {
    names: HashSet<String>,
    /// A `use path::*;` in the body: any single name may come from it.
    glob: bool,
}

impl Locals {
    /// Whether `ty` starts a path with a name of the body, or `Self`, or a named lifetime.
    fn names_something_in(&self, ty: &Type) -> bool {
        struct Finder<'a> {
            locals: &'a Locals,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_type_path(&mut self, path: &'ast TypePath) {
                if path.qself.is_none()
                    && path.path.leading_colon.is_none()
                    && let Some(first) = path.path.segments.first()
                {
                    let name = first.ident.to_string();
                    let single = path.path.segments.len() == 1;
                    if name == "Self"
                        || self.locals.names.contains(&name)
                        || (single && self.locals.glob)
                    {
                        self.found = true;
                    }
                }
                visit::visit_type_path(self, path);
            }

            fn visit_lifetime(&mut self, lifetime: &'ast Lifetime) {
                if lifetime.ident != "static" {
                    self.found = true;
                }
            }

            fn visit_type(&mut self, ty: &'ast Type) {
                if matches!(ty, Type::Infer(_) | Type::ImplTrait(_) | Type::Macro(_)) {
                    self.found = true;
                }
                visit::visit_type(self, ty);
            }
        }
        let mut finder = Finder {
            locals: self,
            found: false,
        };
        finder.visit_type(ty);
        finder.found
    }

    fn add(&mut self, ident: &Ident) {
        self.names.insert(ident.to_string());
    }

    fn add_use(&mut self, tree: &UseTree) {
        match tree {
            UseTree::Path(path) => self.add_use(&path.tree),
            UseTree::Name(name) => self.add(&name.ident),
            UseTree::Rename(rename) => self.add(&rename.rename),
            UseTree::Glob(_) => self.glob = true,
            UseTree::Group(group) => group.items.iter().for_each(|tree| self.add_use(tree)),
        }
    }
}

impl<'ast> Visit<'ast> for Locals {
    fn visit_item(&mut self, item: &'ast Item) {
        match item {
            Item::Struct(item) => self.add(&item.ident),
            Item::Enum(item) => self.add(&item.ident),
            Item::Union(item) => self.add(&item.ident),
            Item::Type(item) => self.add(&item.ident),
            Item::Trait(item) => self.add(&item.ident),
            Item::Mod(item) => self.add(&item.ident),
            Item::Use(item) => self.add_use(&item.tree),
            _ => {}
        }
        visit::visit_item(self, item);
    }

    fn visit_generic_param(&mut self, param: &'ast GenericParam) {
        if let GenericParam::Type(param) = param {
            self.add(&param.ident);
        }
        visit::visit_generic_param(self, param);
    }
}

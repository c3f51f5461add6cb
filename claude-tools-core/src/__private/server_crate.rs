//! Whether a tool's expansion is in its server's crate, as a type: what
//! [`duplicate_tool_name`](super::duplicate_tool_name) keys a tool's name on.

/// What a tool's expansion reads as `<Server>::__CT_SERVER_CRATE`: `false` wherever the
/// `pub(crate)` inherent constant `#[tool_server]` defines (`true`) is not visible, that is in
/// every crate but the server's (method probing skips an inherent item that is not accessible).
pub trait NotTheServerCrate {
    /// `false`: this crate cannot see the server's own constant.
    const __CT_SERVER_CRATE: bool = false;
}

impl<T: ?Sized> NotTheServerCrate for T {}

/// A type-level `if`: `<Pick<{c}> as Choose<A, B>>::Out` is `A` when `c`, else `B`.
pub struct Pick<const CONDITION: bool>;

/// See [`Pick`].
pub trait Choose<A: ?Sized, B: ?Sized> {
    /// The chosen type.
    type Out: ?Sized;
}

impl<A: ?Sized, B: ?Sized> Choose<A, B> for Pick<true> {
    type Out = A;
}

impl<A: ?Sized, B: ?Sized> Choose<A, B> for Pick<false> {
    type Out = B;
}

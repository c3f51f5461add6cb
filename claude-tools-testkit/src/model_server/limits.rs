//! The caps the model server puts on a request: what [`http`](super::http) configures hyper
//! with, and what [`head`](super::head) must keep of a connection to find a head again.

/// Largest request head accepted (request line plus headers); hyper answers a larger one with
/// `431 Request Header Fields Too Large` and closes the connection.
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// Most headers in one request (hyper's default is 100; a client with more gets a 431 too).
pub(super) const MAX_HEADERS: usize = 1024;
/// Largest request body accepted; a larger one is answered `413` with a JSON error.
pub(crate) const MAX_BODY: usize = 64 * 1024 * 1024;
/// hyper's read buffer, which bounds how much it reads ahead of the request it is on (and so
/// how much of the connection [`super::head::HeadLog`] must keep).
pub(crate) const READ_BUF: usize = 4 * MAX_HEAD;

//! Resources: data a server exposes by URI, for the client to read into the model's context.
//!
//! A resource has a fixed URI (`units://table`, listed by `resources/list`) or a URI template
//! (`tickets://{id}`, listed by `resources/templates/list`) whose variables select one of many;
//! `resources/read` answers its contents, text or binary (base64). A client may subscribe to a
//! URI and is then told of its changes (`notifications/resources/updated`,
//! [`ToolServerHandle::resource_updated`](crate::mcp::ToolServerHandle::resource_updated)).
//!
//! Define one with `#[resource(server = S, uri = "...")]` on a fn (see the attribute's docs in
//! `claude-tools`), or at run time with [`Resource::new`] and
//! [`ToolServer::with_resource`](crate::tool::ToolServer::with_resource).

mod contents;
mod def;
mod error;
mod template;

pub use contents::{Blob, IntoResourceContents, ReadResourceResult, ResourceContents};
pub use def::{
    Resource, ResourceDef, ResourceFuture, ResourceHandler, ResourceRequest, ResourceTemplateDef,
};
pub(crate) use error::ErrorKind;
pub use error::ResourceError;
pub use template::UriTemplate;

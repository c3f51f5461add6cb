//! The prompts and resources of a [`ToolServer`], beside its tools: how they are stored,
//! added (by hand, or collected from `#[prompt]` and `#[resource]` fns) and found.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::prompt::{GetPromptResult, Prompt, PromptArguments, PromptDef, PromptError};
use crate::resource::{
    Resource, ResourceContents, ResourceDef, ResourceError, ResourceRequest, ResourceTemplateDef,
};
use crate::tool::{ElicitedForm, ServerBuildError, ToolServer};

/// A server's prompts and resources.
#[derive(Clone, Default)]
pub(crate) struct Catalog {
    /// Sorted by name: `prompts/list` is stable and a lookup is a binary search.
    prompts: Vec<Prompt>,
    /// Fixed resources by URI.
    fixed: BTreeMap<String, Resource>,
    /// Templates, sorted by URI template; a URI is read by the first that matches.
    templates: Vec<Resource>,
}

impl Catalog {
    pub(crate) fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.prompts
            .binary_search_by(|prompt| prompt.name().cmp(name))
            .ok()
            .map(|index| &self.prompts[index])
    }

    /// The resource `uri` reads, with the values of its template's variables.
    pub(crate) fn resource_at(&self, uri: &str) -> Option<(&Resource, BTreeMap<String, String>)> {
        if let Some(resource) = self.fixed.get(uri) {
            return Some((resource, BTreeMap::new()));
        }
        self.templates
            .iter()
            .find_map(|template| template.matches(uri).map(|values| (template, values)))
    }

    /// The fixed resource or template written `uri`.
    pub(crate) fn resource(&self, uri: &str) -> Option<&Resource> {
        self.fixed
            .get(uri)
            .or_else(|| self.templates.iter().find(|template| template.uri == uri))
    }

    fn add_prompt(&mut self, server: &str, prompt: Prompt) -> Result<(), ServerBuildError> {
        ElicitedForm::check_all(&prompt.elicited_forms).map_err(|(form, reason)| {
            ServerBuildError::PromptElicitationForm {
                server: server.to_string(),
                prompt: prompt.def.name.clone(),
                form,
                reason,
            }
        })?;
        match self
            .prompts
            .binary_search_by(|existing| existing.name().cmp(prompt.name()))
        {
            Ok(existing) => {
                let mut locations = [self.prompts[existing].location.clone(), prompt.location];
                locations.sort();
                let [first, second] = locations;
                Err(ServerBuildError::DuplicatePrompt {
                    server: server.to_string(),
                    prompt: prompt.def.name,
                    first,
                    second,
                })
            }
            Err(position) => {
                self.prompts.insert(position, prompt);
                Ok(())
            }
        }
    }

    fn add_resource(&mut self, server: &str, resource: Resource) -> Result<(), ServerBuildError> {
        if let Err(reason) = &resource.template {
            return Err(ServerBuildError::InvalidResource {
                server: server.to_string(),
                uri: resource.uri.clone(),
                reason: reason.clone(),
            });
        }
        ElicitedForm::check_all(&resource.elicited_forms).map_err(|(form, reason)| {
            ServerBuildError::ResourceElicitationForm {
                server: server.to_string(),
                uri: resource.uri.clone(),
                form,
                reason,
            }
        })?;
        if let Some(existing) = self.resource(&resource.uri) {
            let mut locations = [existing.location.clone(), resource.location];
            locations.sort();
            let [first, second] = locations;
            return Err(ServerBuildError::DuplicateResource {
                server: server.to_string(),
                uri: resource.uri,
                first,
                second,
            });
        }
        if resource.is_fixed() {
            self.fixed.insert(resource.uri.clone(), resource);
        } else {
            let position = self
                .templates
                .partition_point(|template| template.uri < resource.uri);
            self.templates.insert(position, resource);
        }
        Ok(())
    }

    pub(crate) fn remove_prompt(&mut self, name: &str) -> bool {
        match self
            .prompts
            .binary_search_by(|prompt| prompt.name().cmp(name))
        {
            Ok(index) => {
                self.prompts.remove(index);
                true
            }
            Err(_) => false,
        }
    }

    pub(crate) fn remove_resource(&mut self, uri: &str) -> bool {
        if self.fixed.remove(uri).is_some() {
            return true;
        }
        let before = self.templates.len();
        self.templates.retain(|template| template.uri != uri);
        self.templates.len() != before
    }
}

/// `#[prompt]` and `#[resource]`, as submitted to `inventory`. Macro support, not public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct CatalogRegistration {
    server: fn() -> TypeId,
    entry: fn() -> CatalogEntry,
}

/// What one registration adds.
#[doc(hidden)]
#[derive(Debug)]
pub enum CatalogEntry {
    /// A `#[prompt]`.
    Prompt(Prompt),
    /// A `#[resource]`.
    Resource(Resource),
}

impl CatalogRegistration {
    /// What `#[prompt]` and `#[resource]` submit: the server's `TypeId` getter and the entry.
    pub const fn new(server: fn() -> TypeId, entry: fn() -> CatalogEntry) -> Self {
        Self { server, entry }
    }
}

inventory::collect!(CatalogRegistration);

/// Adds the `#[prompt]` and `#[resource]` fns of server type `server_type` to `server`.
pub(crate) fn collect_registered(
    server: &mut ToolServer,
    server_type: TypeId,
) -> Result<(), ServerBuildError> {
    for registration in inventory::iter::<CatalogRegistration> {
        if (registration.server)() == server_type {
            match (registration.entry)() {
                CatalogEntry::Prompt(prompt) => server.add_prompt(prompt)?,
                CatalogEntry::Resource(resource) => server.add_resource(resource)?,
            }
        }
    }
    Ok(())
}

impl ToolServer {
    /// Adds a prompt ([`Prompt::new`]); a name already taken is
    /// [`ServerBuildError::DuplicatePrompt`].
    pub fn with_prompt(mut self, prompt: Prompt) -> Result<Self, ServerBuildError> {
        self.add_prompt(prompt)?;
        Ok(self)
    }

    /// Adds a resource or a resource template ([`Resource::new`]); a URI already taken is
    /// [`ServerBuildError::DuplicateResource`], a template that does not parse
    /// [`ServerBuildError::InvalidResource`].
    pub fn with_resource(mut self, resource: Resource) -> Result<Self, ServerBuildError> {
        self.add_resource(resource)?;
        Ok(self)
    }

    pub(crate) fn add_prompt(&mut self, prompt: Prompt) -> Result<(), ServerBuildError> {
        let name = self.name().to_string();
        let inner = Arc::make_mut(&mut self.inner);
        inner.catalog.add_prompt(&name, prompt)
    }

    pub(crate) fn add_resource(&mut self, resource: Resource) -> Result<(), ServerBuildError> {
        let name = self.name().to_string();
        let inner = Arc::make_mut(&mut self.inner);
        inner.catalog.add_resource(&name, resource)
    }

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    pub(crate) fn catalog_mut(&mut self) -> &mut Catalog {
        &mut Arc::make_mut(&mut self.inner).catalog
    }

    /// The server's prompts, sorted by name.
    pub fn prompts(&self) -> &[Prompt] {
        &self.inner.catalog.prompts
    }

    /// The prompt called `name`.
    pub fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.inner.catalog.prompt(name)
    }

    /// The server's fixed resources (sorted by URI), then its templates (sorted by URI
    /// template).
    pub fn resources(&self) -> impl Iterator<Item = &Resource> {
        let catalog = &self.inner.catalog;
        catalog.fixed.values().chain(&catalog.templates)
    }

    /// Gets prompt `name` with `arguments` (what `prompts/get` answers, with no client to ask
    /// questions): the prompt's extractors read this server's state. An unknown prompt is an
    /// error saying so.
    ///
    /// ```
    /// use claude_tools::prelude::*;
    /// use claude_tools::prompts::{PromptArguments, PromptMessage};
    ///
    /// #[tool_server(name = "desk")]
    /// pub struct Desk;
    ///
    /// pub struct Signature(String);
    ///
    /// /// Draft a reply.
    /// #[prompt(server = Desk)]
    /// fn reply(State(signature): State<Signature>, customer: String) -> String {
    ///     format!("Write to {customer}, signed {}.", signature.0)
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = Desk::server().with_state(Signature("Ada".into()));
    /// let arguments = PromptArguments::from_iter([("customer", "Alan")]);
    /// let result = server.get_prompt("reply", arguments).await.unwrap();
    /// assert_eq!(result.messages, [PromptMessage::user("Write to Alan, signed Ada.")]);
    /// # });
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: PromptArguments,
    ) -> Result<GetPromptResult, PromptError> {
        let Some(prompt) = self.prompt(name) else {
            return Err(PromptError::invalid_arguments(format!(
                "Prompt `{name}` not found on server `{}`",
                self.name()
            )));
        };
        prompt.get(arguments.with_state_of(self)).await
    }

    /// Reads the resource at `uri` (what `resources/read` answers, with no client to ask
    /// questions): the resource's extractors read this server's state. No resource at `uri` is
    /// a not-found error.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        let Some((resource, values)) = self.catalog().resource_at(uri) else {
            return Err(ResourceError::not_found(format!(
                "no resource of server `{}` is at `{uri}`",
                self.name()
            )));
        };
        let request = ResourceRequest::new(uri, values)
            .with_mime_type(resource.mime_type.clone())
            .with_state_of(self);
        resource.read(request).await
    }

    /// The `prompts` array of a `prompts/list` result.
    pub fn list_prompts(&self) -> Vec<PromptDef> {
        self.prompts()
            .iter()
            .map(|prompt| prompt.def.clone())
            .collect()
    }

    /// The `resources` array of a `resources/list` result: the fixed resources.
    pub fn list_resources(&self) -> Vec<ResourceDef> {
        self.inner
            .catalog
            .fixed
            .values()
            .map(Resource::def)
            .collect()
    }

    /// The `resourceTemplates` array of a `resources/templates/list` result.
    pub fn list_resource_templates(&self) -> Vec<ResourceTemplateDef> {
        self.inner
            .catalog
            .templates
            .iter()
            .map(Resource::template_def)
            .collect()
    }

    /// Whether the server has prompts (and so answers `initialize` with the `prompts`
    /// capability).
    pub fn has_prompts(&self) -> bool {
        !self.inner.catalog.prompts.is_empty()
    }

    /// Whether the server has resources or resource templates (the `resources` capability).
    pub fn has_resources(&self) -> bool {
        let catalog = &self.inner.catalog;
        !catalog.fixed.is_empty() || !catalog.templates.is_empty()
    }
}

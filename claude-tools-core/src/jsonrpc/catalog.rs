//! The results of the prompt, resource and completion methods, typed.

use serde::Serialize;

use crate::complete::CompleteResult;
use crate::prompt::{GetPromptResult, PromptDef};
use crate::resource::{ReadResourceResult, ResourceDef, ResourceTemplateDef};

/// The answer to a `prompts/*`, `resources/*` or `completion/complete` request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum CatalogAnswer {
    /// `prompts/list`: every prompt, in one page.
    PromptsList {
        /// The prompts.
        prompts: Vec<PromptDef>,
    },
    /// `prompts/get`.
    Prompt(GetPromptResult),
    /// `resources/list`: every fixed resource, in one page.
    ResourcesList {
        /// The resources.
        resources: Vec<ResourceDef>,
    },
    /// `resources/templates/list`: every resource template, in one page.
    ResourceTemplatesList {
        /// The templates.
        #[serde(rename = "resourceTemplates")]
        resource_templates: Vec<ResourceTemplateDef>,
    },
    /// `resources/read`.
    Resource(ReadResourceResult),
    /// `completion/complete`.
    Complete(CompleteResult),
}

//! Duplicate names are an error naming both source locations, never an overwrite.
#![allow(missing_docs)]

use toolwright::prelude::*;
use toolwright::{RegistryError, ToolInfo};

macro_rules! noop_tools {
    ($($t:ident),*) => {$(
        impl Tool for $t {
            type Output = String;
            async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
                Ok(String::new())
            }
        }
    )*};
}

/// First claimant.
#[tool(name = "clash")]
pub struct First {}

/// Second claimant of the same name.
#[tool(name = "clash")]
pub struct Second {}

/// Owns an alias that another tool has as its name.
#[tool(aliases = ["taken"])]
pub struct HasAlias {}

/// Named like the alias above.
#[tool]
pub struct Taken {}

noop_tools!(First, Second, HasAlias, Taken);

#[test]
fn duplicates_from_inventory_name_both_locations() {
    let err = Registry::from_inventory().unwrap_err();
    let RegistryError::DuplicateNames(dups) = &err else { panic!("{err:?}") };
    assert_eq!(dups.len(), 2, "{err}");
    let text = err.to_string();
    let file = file!();
    assert!(
        text.contains(&format!("duplicate tool name `clash`: tool `clash` at {file}:20 and tool `clash` at {file}:24")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "duplicate tool name `taken`: an alias of tool `has_alias` at {file}:28 and tool `taken` at {file}:32"
        )),
        "{text}"
    );
    // The same checks apply to the built-ins' convenience constructor.
    assert_eq!(toolwright::registry().unwrap_err(), err);
}

#[test]
fn explicit_registration_works_without_inventory_and_dedupes() {
    let registry = Registry::builder().register::<First>().register::<HasAlias>().register::<First>().build().unwrap();
    assert_eq!(registry.names(), ["clash", "has_alias"]);
    assert!(registry.get("taken").is_some(), "alias routes to its tool");
    assert_eq!(registry.get("taken").unwrap().spec().name, HasAlias::SPEC.name);
}

#[test]
fn an_explicit_duplicate_is_reported_too() {
    let err = Registry::builder().register::<First>().register::<Second>().build().unwrap_err();
    assert!(err.to_string().starts_with("duplicate tool name `clash`"), "{err}");
}

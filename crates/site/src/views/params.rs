//! What a query parameter may hold, said once: checked here when a request is read, and
//! described from the same constants in the API's OpenAPI document (the `value_type`s of the
//! queries' fields), so a request the document allows is never refused for its form.

use std::borrow::Cow;

use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use crate::error::Failure;
use iomark_result::result::identity::KINDS;
use iomark_result::result::metric::METRICS;

/// The most characters a text parameter may hold.
pub const TEXT_MAX: usize = 200;

/// No control character (C0, DEL or C1), as [`plain`] checks (JSON Schema's regex dialect).
const PLAIN: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$";

/// Some words: [`PLAIN`], with one character at least that is not a space ([`words`]).
pub const WORDS: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$";

/// Some words, 1 to `most` characters, not all of them spaces, none a control character (as
/// [`WORDS`] says): a moderator's reason, a device key.
pub fn words<'a>(name: &str, value: Option<&'a str>, most: usize) -> Result<&'a str, Failure> {
    match value {
        Some(v)
            if v.chars().count() <= most
                && v.chars().any(|c| !c.is_whitespace())
                && !v.chars().any(char::is_control) =>
        {
            Ok(v)
        }
        _ => Err(Failure::bad(format!(
            "{name}: 1 to {most} characters, not all spaces, no control characters"
        ))),
    }
}

/// Refuses a text parameter over [`TEXT_MAX`] characters or holding a control character.
pub fn plain(name: &str, value: Option<&str>) -> Result<(), Failure> {
    if value.is_some_and(|v| v.chars().count() > TEXT_MAX || v.chars().any(char::is_control)) {
        return Err(Failure::bad(format!(
            "{name}: at most {TEXT_MAX} characters, and no control characters"
        )));
    }
    Ok(())
}

/// Refuses a count outside `1..=most`; absent, it is `default`.
pub fn limit(value: Option<u32>, default: u32, most: u32) -> Result<u32, Failure> {
    match value.unwrap_or(default) {
        n @ 1.. if n <= most => Ok(n),
        _ => Err(Failure::bad(format!("limit: 1 to {most}"))),
    }
}

/// Any text [`plain`] lets through.
pub struct Text;

impl PartialSchema for Text {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(TEXT_MAX))
            .pattern(Some(PLAIN))
            .into()
    }
}

/// One of `values`, or empty for none chosen (what the page's form sends for "any").
fn choice<'a>(values: impl Iterator<Item = &'a str>) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(std::iter::once("").chain(values)))
        .into()
}

/// A kind of device, as the site names kinds.
pub struct Kind;

impl PartialSchema for Kind {
    fn schema() -> RefOr<Schema> {
        choice(KINDS.iter().copied())
    }
}

/// A figure the site ranks by.
pub struct Figure;

impl PartialSchema for Figure {
    fn schema() -> RefOr<Schema> {
        choice(METRICS.iter().map(|m| m.column))
    }
}

/// Yes or no: `1` or `true`, `0`, `false` or empty.
pub struct Switch;

impl PartialSchema for Switch {
    fn schema() -> RefOr<Schema> {
        choice(["0", "1", "false", "true"].into_iter())
    }
}

/// A count from 1 to `MOST`.
pub struct Limit<const MOST: u32>;

impl<const MOST: u32> PartialSchema for Limit<MOST> {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(1))
            .maximum(Some(MOST))
            .into()
    }
}

// Inlined wherever they are used; the names are for completeness.
impl ToSchema for Text {}
impl ToSchema for Kind {}
impl ToSchema for Figure {}
impl ToSchema for Switch {}
impl<const MOST: u32> ToSchema for Limit<MOST> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("Limit{MOST}"))
    }
}

//! The API described: an OpenAPI 3.1 document made from the handlers' own annotations and the
//! types they answer with (utoipa), served at `/api/v1/openapi.json`. What any route may
//! answer besides its own (an address refused, too many requests, the store away, a body
//! refused before it is read) is added to every operation here, once, as is the 401 of every
//! moderators' operation.

use utoipa::openapi::header::Header;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{Ref, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, ObjectBuilder, OpenApi, ResponseBuilder};
use utoipa::Modify;

use super::error::Refusal;

#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "iomark results site",
        description = "Storage benchmark results as data: leaderboards, devices, every result \
            a page at a time, comparisons; submitting a result (the document `iomark run --json` \
            writes) and deleting it with its token; the moderators' API when the site has one. \
            Every failure is `{\"error\": \"…\"}`.",
        license(name = "MIT OR Apache-2.0"),
    ),
    components(schemas(Refusal)),
    tags(
        (name = "results", description = "Results, devices and how they rank"),
        (name = "cards", description = "Cards whose owners share their health checks: \
            added to and withdrawn under the card's own key"),
        (name = "moderation", description = "Hiding, restoring and merging, for the site's \
            moderators (with --admin-token-file; 404 without it)"),
    )
)]
pub struct Doc;

/// Answers any operation may give, beside its own.
struct Common;

impl Modify for Common {
    fn modify(&self, doc: &mut OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        for (name, what) in [
            (
                "token",
                "The token a submission was answered with; for a card's health, the card's \
                 own key",
            ),
            (
                "moderator",
                "The site's moderators' secret (--admin-token-file)",
            ),
        ] {
            components.add_security_scheme(
                name,
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(what))
                        .build(),
                ),
            );
        }
        for item in doc.paths.paths.values_mut() {
            let methods = [
                (&mut item.get, false),
                (&mut item.delete, true),
                (&mut item.post, true),
            ];
            for (operation, write) in methods {
                let Some(operation) = operation.as_mut() else {
                    continue;
                };
                refused(
                    operation,
                    "400",
                    "The address or a parameter is refused (a control character, an unknown \
                     figure or kind, a value out of range)",
                );
                refused(
                    operation,
                    "429",
                    "Too many requests from this address (submissions and deletions have a \
                     lower limit); Retry-After says in how many seconds to try again",
                );
                refused(
                    operation,
                    "503",
                    "The results store is unavailable or slow: try again shortly",
                );
                let moderating = operation
                    .tags
                    .as_ref()
                    .is_some_and(|tags| tags.iter().any(|t| t == "moderation"));
                if moderating {
                    refused(operation, "401", "Without the site's secret");
                }
                if write && operation.request_body.is_some() {
                    refused(operation, "408", "The body did not arrive in time");
                    refused(operation, "413", "The body is too large");
                    refused(
                        operation,
                        "415",
                        "The body is not Content-Type: application/json",
                    );
                }
            }
        }
    }
}

/// Adds a refusal answered as `{"error": …}`, unless the operation says its own.
fn refused(operation: &mut Operation, status: &str, description: &str) {
    let mut response = ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("Refusal")))
            .build(),
    );
    if status == "429" {
        response = response.header(
            "Retry-After",
            Header::new(ObjectBuilder::new().schema_type(Type::Integer)),
        );
    }
    operation
        .responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| response.build().into());
}

/// The document with every route in it (`OpenApiRouter::split_for_parts`), as JSON, made once
/// when the router is.
pub fn document(mut doc: OpenApi) -> String {
    Common.modify(&mut doc);
    doc.to_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"the API could not be described: {e}\"}}"))
}

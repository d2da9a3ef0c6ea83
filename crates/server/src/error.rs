//! Errors as the API answers them: a status and `{"error": {"code",
//! "message"}}`, the message saying what to do.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered to a request.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A short code a program can match on.
    pub code: &'static str,
    /// What went wrong and what to do, for people.
    pub message: String,
}

impl ApiError {
    /// An error of `status` with `code` and `message`.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// A request the service cannot take (400).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// A failure of the store (500): nothing was acknowledged.
    pub fn store(e: &neardup_store::Error) -> ApiError {
        match e {
            e if e.is_input() => ApiError::bad_request(e.to_string()),
            _ => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_failed",
                format!("the store failed, nothing was written: {e}"),
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// The codes the service's sources answer with: the second argument of
    /// each `ApiError::new(`, and each `"code": "…"` (a batch document's
    /// error).
    fn codes_in_sources() -> BTreeSet<String> {
        let sources = [
            include_str!("commit.rs"),
            include_str!("error.rs"),
            include_str!("guard.rs"),
            include_str!("lib.rs"),
            include_str!("routes.rs"),
            include_str!("uri.rs"),
        ];
        let mut codes = BTreeSet::new();
        // Each file's code, not its tests (this one's would match itself).
        for source in sources.map(|s| s.split("#[cfg(test)]").next().unwrap_or(s)) {
            for (at, _) in source.match_indices("ApiError::new(") {
                let rest = &source[at..];
                let after = rest.split_once(',').map(|(_, after)| after.trim_start());
                if let Some(literal) = after.and_then(|a| a.strip_prefix('"')) {
                    codes.extend(literal.split('"').next().map(str::to_string));
                }
            }
            for (at, _) in source.match_indices(r#""code": ""#) {
                let literal = &source[at + r#""code": ""#.len()..];
                codes.extend(literal.split('"').next().map(str::to_string));
            }
        }
        codes
    }

    #[test]
    fn every_code_answered_is_in_the_openapi_documents_enum() {
        let doc: serde_json::Value = serde_json::from_str(crate::OPENAPI).expect("valid JSON");
        let listed: BTreeSet<String> =
            doc["components"]["schemas"]["ErrorBody"]["properties"]["code"]["enum"]
                .as_array()
                .expect("the enum of codes")
                .iter()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect();
        let answered = codes_in_sources();
        assert!(answered.len() > 10, "too few codes found: {answered:?}");
        let unlisted: Vec<_> = answered.difference(&listed).collect();
        assert!(
            unlisted.is_empty(),
            "codes answered but not in ErrorBody: {unlisted:?}"
        );
        let unanswered: Vec<_> = listed.difference(&answered).collect();
        assert!(
            unanswered.is_empty(),
            "codes listed but never answered: {unanswered:?}"
        );
    }

    #[test]
    fn every_operation_lists_the_answers_any_request_can_get() {
        let doc: serde_json::Value = serde_json::from_str(crate::OPENAPI).expect("valid JSON");
        let paths = doc["paths"].as_object().expect("paths");
        for (path, item) in paths {
            for (method, operation) in item.as_object().expect("a path item") {
                if method == "parameters" {
                    continue;
                }
                let open = operation["security"] == serde_json::json!([]);
                let responses = &operation["responses"];
                for status in ["200", "400", "405", "414", "431", "503"]
                    .into_iter()
                    .chain((!open).then_some("401"))
                {
                    assert!(
                        responses.get(status).is_some(),
                        "{method} {path} does not list {status}"
                    );
                }
            }
        }
    }
}

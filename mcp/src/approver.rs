//! What a served call the permission rules would ask about gets: a denial, an
//! elicitation to the client's user, or (for a stateless 2026-07-28 client) an
//! `input_required` round.

use rmcp::Peer;
use rmcp::service::{ElicitationError, RoleServer};
use toolwright_core::BoxFuture;
use toolwright_core::permission::{Approval, Approver, PermissionRequest};

/// What an MCP server does when the permission policy asks about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AskMode {
    /// Deny the call, with a result that says approval was needed. The default: a
    /// server has no one to ask unless the client offers elicitation.
    #[default]
    Deny,
    /// Ask the client's user through MCP elicitation when the client supports it,
    /// else deny.
    Elicit,
}

/// The client of the call being served, in the turn's extensions, so that an
/// [`Approver`] can ask it (see [`approver`]).
#[derive(Clone)]
pub struct McpPeer(pub Peer<RoleServer>);

/// The approver an MCP server uses for the policy's asks: deny, or elicit (see
/// [`AskMode`]). [`McpServer::new`](crate::McpServer::new) installs it; pass it to
/// [`ExecutorBuilder::approver`](toolwright_core::ExecutorBuilder::approver) when building
/// your own executor for [`McpServer::with_executor`](crate::McpServer::with_executor).
pub fn approver(mode: AskMode) -> impl Approver {
    McpApprover { mode }
}

struct McpApprover {
    mode: AskMode,
}

/// The form an elicitation shows: one yes/no question.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ApprovalForm {
    /// Allow this call?
    allow: bool,
}
rmcp::elicit_safe!(ApprovalForm);

impl Approver for McpApprover {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            if self.mode == AskMode::Deny {
                return Approval::Unanswered(
                    "this MCP server is configured to deny what needs approval (AskMode::Deny); AskMode::Elicit asks \
                     the client's user"
                        .into(),
                );
            }
            // A stateless (2026-07-28) call asks by answering `input_required`; its
            // retry brings the answer.
            if let Some(round) = request.extensions.get::<super::input_required::InputRound>() {
                return match round.answer() {
                    _ if !round.can_elicit() => Approval::Unanswered(
                        "the MCP client does not support elicitation, so its user cannot be asked".into(),
                    ),
                    Some(true) => Approval::AllowOnce,
                    Some(false) => Approval::Deny(Some("the user declined in the MCP client".into())),
                    None => {
                        round.needs(format!("{}\n\n{question}", request.summary()));
                        Approval::Unanswered("waiting for the MCP client's user (input required)".into())
                    }
                };
            }
            let Some(McpPeer(peer)) = request.extensions.get::<McpPeer>() else {
                return Approval::Unanswered("no MCP client is attached to this call".into());
            };
            if peer.supported_elicitation_modes().is_empty() {
                return Approval::Unanswered(
                    "the MCP client does not support elicitation, so its user cannot be asked".into(),
                );
            }
            match peer.elicit::<ApprovalForm>(format!("{}\n\n{question}", request.summary())).await {
                Ok(Some(ApprovalForm { allow: true })) => Approval::AllowOnce,
                Ok(_) | Err(ElicitationError::UserDeclined) => {
                    Approval::Deny(Some("the user declined in the MCP client".into()))
                }
                // Dismissed without a choice: not a yes, and not the user's no either.
                Err(ElicitationError::UserCancelled) => {
                    Approval::Unanswered("the MCP client's user dismissed the question without answering".into())
                }
                Err(e) => Approval::Unanswered(format!("asking the MCP client's user failed: {e}")),
            }
        })
    }
}

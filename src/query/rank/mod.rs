//! The ranking stage: which retrievers a question calls for, how their
//! lists are fused ([`fusion`]), the priors on a file's role and a result's
//! kind ([`priors`]), the files to open ([`files`]), what past commits like the question
//! changed ([`history`]), a listing's items
//! ([`listed`]), and the stage every answer goes through ([`pipeline`]).
//! [`hybrid::answer`] is the driver: it runs a source's retrievers and
//! ranks what they find.

pub mod files;
pub mod fusion;
pub mod history;
pub mod hybrid;
pub mod listed;
pub mod pipeline;
pub mod priors;
pub mod rerank;
pub mod stage;

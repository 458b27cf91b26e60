//! The places a query searches, each a [`crate::query::retrieve::Source`]:
//! the open local index ([`engine`]) with the work tree laid over it
//! ([`local`], [`layered`]), its code graph ([`graph`]), a Qdrant server's
//! collections alone ([`server`]), and the long-lived engine a server
//! process keeps warm ([`warm`]).

pub mod engine;
pub mod graph;
pub mod layered;
pub mod local;
pub mod server;
pub mod warm;

//! The base layer of `src/query/`: the features the ranking stage weighs
//! ([`features`]) and every number that orders results, each with its
//! reason ([`parameters`]). Every other layer reads them (a retriever's own
//! scores, a question's list weights); they read no other layer.

pub mod features;
pub mod parameters;

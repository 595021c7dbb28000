// Package index is the semantic code index: walking, chunking, embedders,
// lexical and vector retrieval, fusion, pattern weights and incremental
// updates. It serves semantic_search.
package index

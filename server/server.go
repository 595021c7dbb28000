// Package server is the LSP/JSON-RPC surface of autarch: the lifecycle,
// capabilities, workspace/executeCommand and the custom autarch/* methods.
// Handlers decode, call one domain function, and encode.
package server

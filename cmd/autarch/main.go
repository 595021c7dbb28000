// Command autarch is the Autarch server and CLI: serve (LSP over stdio),
// and headless verbs for tools, indexing, search, workflows and review.
package main

func main() {}

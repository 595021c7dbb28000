// Package agent runs the loop between a Model and the tools: roles (system
// prompt and tool set per agent), the transcript, terminal tools and yields,
// compaction near the context window, usage and budgets.
package agent

// Package openai implements agent.Model over openai-go against any
// OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio, OpenRouter).
package openai

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
	"github.com/autarch-dev/autarch/tools"
)

// This file is the one engine wiring: every surface (the serve verb's
// sessions, run, resume, review, status, stop) completes its engine's
// configuration with wire, so model, pricing, budget, window, mode and
// confinement are chosen the same way everywhere.

// wire completes an engine configuration with model and the flags'
// choices; warn tells the user about confinement (stderr for verbs, a
// message for the editor).
func (f *engineFlags) wire(model agent.Model, warn func(string)) func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
	return func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
		mode := tools.ModeConfirmSensitive
		if f.mode != "" {
			var err error
			if mode, err = tools.ParseMode(f.mode); err != nil {
				return err
			}
		}
		if f.yes {
			mode = tools.ModeYolo
		}
		policy, err := commandPolicy(ctx, warn)
		if err != nil {
			return err
		}
		if p != nil {
			policy = withNetwork(policy, p.Config.Settings)
			cfg.Tools = projectMCPTools(p.Config, warn, f.live)
			cfg.Web = webSearch(p.Config, warn)
		}
		cfg.Model, cfg.Commands, cfg.Mode = model, policy, mode
		cfg.Settings = f.settings()
		cfg.Meter = agent.NewMeter(f.budget)
		cfg.MaxIterations = f.maxIter
		if p != nil {
			if cfg.ResearchFanOut, err = researchFanOut(p, model, cfg.Settings.ModelFor(agent.Research), cfg.Tools); err != nil {
				return err
			}
		}
		return nil
	}
}

// envResearchExplorers turns on Research's fan-out to explorer
// sub-agents: how many (0 or unset: off; at least 2).
const envResearchExplorers = "AUTARCH_RESEARCH_EXPLORERS"

// researchFanOut is Research's fan-out to explorer sub-agents sharing
// findings through a read-only swarm, when AUTARCH_RESEARCH_EXPLORERS asks
// for it (nil: off, the default).
func researchFanOut(p *workflow.Project, model agent.Model, modelName string, mcpTools func(context.Context, string) []tools.Tool) (func(ctx context.Context, key, scope string) (string, error), error) {
	v := os.Getenv(envResearchExplorers)
	if v == "" || v == "0" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 2 || n > 16 {
		return nil, fmt.Errorf("%s=%q: give a number of explorer sub-agents from 2 to 16 (0 turns the fan-out off)", envResearchExplorers, v)
	}
	connect := func(ctx context.Context) (orchestrate.OpenEngine, func(), error) {
		return orchestrate.ConnectNATS(ctx, p.Repo.StateDir(), p.Config.Settings.Swarm, nil)
	}
	return orchestrate.FanOut{Repo: p.Repo, Connect: connect, Model: model, ModelName: modelName, Explorers: n, Hooks: p.Hooks, Guardrails: p.Guardrails, Tools: mcpTools}.Research, nil
}

// embedFromEnv gives an index the embedding endpoint configured in the
// environment (AUTARCH_EMBED_*), if any.
func embedFromEnv(ctx context.Context, ix *index.Index) error {
	_, err := openai.UseEmbedderFromEnv(ctx, ix, os.Getenv)
	return err
}

// newCodeSearch is the code search of a folder with the embedder picked
// here; wait makes searches wait for the index (verbs) instead of
// answering from what is indexed so far (the editor).
func newCodeSearch(root string, ui editor.Client, wait bool, log *slog.Logger) *codesearch.Search {
	return codesearch.New(codesearch.Config{Root: root, Embed: embedFromEnv, Editor: ui, Wait: wait, Log: log})
}

// liveModel is the model of the editor's current settings: they may change
// while the server runs (didChangeConfiguration, autarch/setApiKey).
type liveModel struct {
	stream bool

	mu     sync.Mutex
	cfg    openai.Config
	name   string
	model  agent.Model
	envErr error
}

// set follows new settings; retries are tuned by the environment
// (AUTARCH_MODEL_RETRIES…), whose mistakes are reported by the next call.
func (m *liveModel) set(s editor.ModelSettings, apiKey string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cfg, err := openai.Config{BaseURL: s.BaseURL, APIKey: apiKey, Stream: m.stream}.WithEnv(os.Getenv)
	if cfg != m.cfg || m.model == nil {
		m.cfg, m.model = cfg, openai.New(cfg)
	}
	m.name, m.envErr = s.Name, err
}

// DefaultModelName is the model the editor's settings name ("": none), so
// that no workflow starts without one.
func (m *liveModel) DefaultModelName() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.name
}

func (m *liveModel) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	m.mu.Lock()
	model, name, envErr := m.model, m.name, m.envErr
	m.mu.Unlock()
	if envErr != nil {
		return agent.Response{}, envErr
	}
	if req.Model == "" {
		req.Model = name
	}
	if req.Model == "" || model == nil {
		return agent.Response{}, fmt.Errorf("no model configured: set autarch.model.name (or AUTARCH_MODEL)")
	}
	return model.Complete(ctx, req, onText)
}

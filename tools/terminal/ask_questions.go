package terminal

import (
	"context"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// Question is one question of ask_questions.
type Question struct {
	Type    string   `json:"type" jsonschema:"single_select, multi_select, ranked or free_text"`
	Prompt  string   `json:"prompt" jsonschema:"The question"`
	Options []string `json:"options,omitempty" jsonschema:"Choices (required for single_select, multi_select, ranked)"`
}

// AskQuestionsParams are ask_questions' parameters.
type AskQuestionsParams struct {
	Reason    string     `json:"reason"`
	Questions []Question `json:"questions" jsonschema:"Array of structured questions"`
}

// EditorQuestions converts the questions for editor.Client.Ask.
func (p AskQuestionsParams) EditorQuestions() []editor.Question {
	out := make([]editor.Question, len(p.Questions))
	for i, q := range p.Questions {
		out[i] = editor.Question{Type: q.Type, Prompt: q.Prompt, Options: q.Options}
	}
	return out
}

func newAskQuestions() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, AskQuestions, describe(AskQuestions), tools.Terminal, func(ctx context.Context, s *tools.Session, p AskQuestionsParams) (tools.Result, error) {
		if len(p.Questions) == 0 {
			return invalid("questions needs at least one question"), nil
		}
		for i, q := range p.Questions {
			if blank(q.Prompt) {
				return invalid("questions[%d].prompt is empty", i), nil
			}
			switch q.Type {
			case editor.FreeText:
			case editor.SingleSelect, editor.MultiSelect, editor.Ranked:
				if len(q.Options) < 2 {
					return invalid("questions[%d] is %s and needs at least two options", i, q.Type), nil
				}
			default:
				return invalid("questions[%d].type %q is invalid: use single_select, multi_select, ranked or free_text", i, q.Type), nil
			}
		}
		return accepted(AskQuestions, map[string]any{"questions": len(p.Questions)}), nil
	})
}

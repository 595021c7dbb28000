package tools

import "context"

// SearchRequest is a semantic_search query after argument validation.
type SearchRequest struct {
	Query string
	// Weights are parsed patternWeights: doublestar glob → weight (0 excludes).
	Weights []PatternWeight
	// MaxResults is ≥ 1.
	MaxResults int
}

// PatternWeight is one parsed "glob:weight" entry of patternWeights.
type PatternWeight struct {
	Glob   string
	Weight float64
}

// SearchHit is one result of semantic_search, in the spec's JSON shape.
type SearchHit struct {
	FilePath      string  `json:"file_path"`
	StartLine     int     `json:"start_line"`
	EndLine       int     `json:"end_line"`
	Snippet       string  `json:"snippet"`
	Score         float64 `json:"score"`
	AdjustedScore float64 `json:"adjusted_score"`
}

// SearchStatus tells the tool how complete the searched index is.
type SearchStatus struct {
	// Indexed is false when the project has never been indexed: the tool
	// then answers "Project has not been indexed yet.".
	Indexed bool
	// Partial is true while indexing is still running; results come from
	// what is indexed so far.
	Partial bool
	// FilesDone and FilesTotal describe indexing progress when Partial.
	FilesDone, FilesTotal int
}

// Searcher is what semantic_search needs from the index. Implementations
// apply Weights (adjusted_score = score × weight, weight 0 excludes) and
// MaxResults, and never return hits for sensitive files.
type Searcher interface {
	Search(ctx context.Context, req SearchRequest) ([]SearchHit, SearchStatus, error)
}

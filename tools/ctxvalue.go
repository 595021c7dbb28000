package tools

import "context"

// ctxKey is the context key of the one value of type T a context carries
// for this package (ToolContext, HookContext).
type ctxKey[T any] struct{}

// withValue returns ctx carrying v.
func withValue[T any](ctx context.Context, v T) context.Context {
	return context.WithValue(ctx, ctxKey[T]{}, v)
}

// valueFrom is the T ctx carries (zero when none).
func valueFrom[T any](ctx context.Context) T {
	v, _ := ctx.Value(ctxKey[T]{}).(T)
	return v
}

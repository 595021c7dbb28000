package workflow

// RevertDyingAt are revert options whose revert calls die at step
// ("commit": after each revert commit is made; "git": once the branch
// moved, before the records are rewound).
func RevertDyingAt(step string, die func()) RevertOptions {
	return RevertOptions{die: func(s string) {
		if s == step {
			die()
		}
	}}
}

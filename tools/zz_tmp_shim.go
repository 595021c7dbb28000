package tools
func normalizedCommands(string) []string { return nil }

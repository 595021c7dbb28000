// Package testkit is the one set of test helpers every package's tests
// share: a fake editor client (Editor) that answers approvals and
// questions from a script and records what it is shown, a txtar scenario
// runner (Scenario, RunScenarios) over the scripted model on real temp git
// repositories, git helpers (NewRepo, Git), a wait helper (CheckFor)
// that polls a condition until a deadline and then fails with the last
// error, instead of sleeping, the error check of a table test's cases
// (WantErr), golden files with -update (Golden) and the endless files a
// hostile tree holds (PlantEndlessFiles).
//
// It is imported only from tests. It imports nothing of the module but
// editor and agent/scripted, so that any package's internal tests may use
// it without an import cycle.
package testkit

package workflow

// AsksInProse exposes asksInProse to the external tests.
var AsksInProse = asksInProse

//go:build agents

package main

import "testing"

// TestAgentScripts runs the transcripts that run the real Claude Code's own
// commands (its plugin install, its MCP list): seconds each, so they run with
// the other real-agent tests, apart from the default suite.
func TestAgentScripts(t *testing.T) { runScripts(t, "testdata/agents") }

//go:build windows

package home

func syncUnsupported(error) bool { return true }

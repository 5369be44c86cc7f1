#!/usr/bin/env bash
# Shim for agent skills and hooks that call the reference client's script name.
exec sotd poll "$@"

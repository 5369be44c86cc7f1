package service

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"path"
	"strings"
	"text/template"
)

//go:embed templates
var templates embed.FS

// files names each OS's template.
var files = map[string]string{
	"linux":   "templates/sotd.service",
	"darwin":  "templates/com.sotcomm.sotd.plist",
	"windows": "templates/sotd-service.cmd",
}

// OSes are the systems a service file can be made for.
var OSes = []string{"linux", "darwin", "windows"}

// Display and Description name the service where a service manager shows them.
const (
	Display     = "sot-comm daemon (sotd)"
	Description = "Files sot-comm mail for the coding-agent sessions of this box: sotd serve."
)

var funcs = template.FuncMap{
	"exec": systemdExec,
	"env":  systemdAssign,
	"xml":  xmlText,
	"cmd":  func(s string) string { return strings.ReplaceAll(s, "%", "%%") },
	"join": path.Join,
}

// Render is the service file for goos (linux: a systemd user unit, darwin: a
// launchd plist, windows: the commands install runs, as a .cmd script).
func Render(goos string, s Spec) ([]byte, error) {
	name, ok := files[goos]
	if !ok {
		return nil, fmt.Errorf("no service file for %q: sotd makes one for %s", goos, strings.Join(OSes, ", "))
	}
	if err := s.check(goos); err != nil {
		return nil, err
	}
	t, err := template.New(path.Base(name)).Funcs(funcs).ParseFS(templates, name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	data := struct {
		Spec
		Name, Label, Display, Description string
	}{s, Name, Label, Display, Description}
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// systemdExec quotes ExecStart's command: systemd unquotes it C-style and
// expands %-specifiers in it, but no $VARIABLES, and refuses to run a command
// whose path holds a quote or a backslash, however escaped.
func systemdExec(bin string) (string, error) {
	if strings.ContainsAny(bin, `"'\`) {
		return "", fmt.Errorf("systemd cannot run a binary whose path holds a quote or a backslash (%s); move sotd to a plain path and install again", bin)
	}
	return `"` + strings.ReplaceAll(bin, "%", "%%") + `"`, nil
}

// systemdAssign is Environment='s quoted NAME=value: unquoted C-style, with
// %-specifiers expanded and no variables.
func systemdAssign(name, value string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%").Replace(name+"="+value) + `"`
}

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

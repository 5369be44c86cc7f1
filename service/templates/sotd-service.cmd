@rem sotd as a Windows service: what "sotd service install" registers with the
@rem service manager, as commands for an elevated prompt. The service runs as
@rem you, so it serves your comm home and passes the daemon's user check: set
@rem SOTD_PASSWORD to your Windows password before running them.
sc.exe create {{.Name}} binPath= "\"{{cmd .Binary}}\" serve" start= auto obj= "%USERDOMAIN%\%USERNAME%" password= "%SOTD_PASSWORD%" DisplayName= "{{.Display}}"
sc.exe description {{.Name}} "{{.Description}}"
{{- with .Env}}
reg add "HKLM\SYSTEM\CurrentControlSet\Services\{{$.Name}}" /v Environment /t REG_MULTI_SZ /d "{{range $i, $v := .}}{{if $i}}\0{{end}}{{cmd $v.Name}}={{cmd $v.Value}}{{end}}" /f
{{- end}}
sc.exe failure {{.Name}} reset= 86400 actions= restart/5000/restart/5000/restart/5000
sc.exe start {{.Name}}

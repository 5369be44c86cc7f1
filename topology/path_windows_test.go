package topology

import "testing"

func TestPath(t *testing.T) {
	tests := []struct {
		name, sotHosts, local, want, wantErr string
	}{
		{"SOT_HOSTS wins", `D:\sot\hosts.toml`, `C:\Users\u\AppData\Local`, `D:\sot\hosts.toml`, ""},
		{"LOCALAPPDATA", "", `C:\Users\u\AppData\Local`, `C:\Users\u\AppData\Local\sot\config\hosts.toml`, ""},
		{"nothing to go by", "", "", "", "no hosts.toml location: %LOCALAPPDATA% is unset; set $SOT_HOSTS to its path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvHosts, tc.sotHosts)
			t.Setenv("LOCALAPPDATA", tc.local)
			got, err := Path()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Path() = %q, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Path() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

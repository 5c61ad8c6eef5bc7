package auth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// parseSecureURL parses raw and accepts absolute https URLs, and http URLs
// whose host is loopback (localhost, 127.0.0.0/8, ::1) for development.
// Fragments (even empty ones) and user information are refused.
func parseSecureURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse URL: %w", err)
	}
	if !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute URL", u.Redacted())
	}
	if u.User != nil {
		return nil, errors.New("URL must not contain user information")
	}
	if strings.Contains(raw, "#") {
		return nil, errors.New("URL must not contain a fragment")
	}
	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return u, nil
		}
		return nil, fmt.Errorf("URL %q must use https (http is allowed only on loopback hosts)", u.Redacted())
	}
	return nil, fmt.Errorf("URL scheme %q is not https", u.Scheme)
}

// isLoopbackHost reports whether host names the local machine.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

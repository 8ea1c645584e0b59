package bqfake

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// bigqueryScope is the OAuth scope the client library asks for.
const bigqueryScope = "https://www.googleapis.com/auth/bigquery"

type saAuth struct {
	email string
	key   *rsa.PublicKey
}

// ServiceAccountKey is a generated service-account key file in Google's JSON
// format, its token_uri pointing at the fake.
type ServiceAccountKey struct {
	JSON         []byte // the key file's content
	PrivateKeyID string
	PrivateKey   string // PEM
	ClientEmail  string
}

// RequireServiceAccount makes the fake behave like Google with a service
// account: the token endpoint (/token) accepts only JWT-bearer assertions
// signed with a freshly generated key, and every API call must carry a token
// it issued. It returns the key file for the client to use.
func (s *Server) RequireServiceAccount(project string) (*ServiceAccountKey, error) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	idBytes := make([]byte, 20)
	rand.Read(idBytes)
	k := &ServiceAccountKey{
		PrivateKeyID: fmt.Sprintf("%x", idBytes),
		PrivateKey:   pemKey,
		ClientEmail:  "clinsql-runner@" + project + ".iam.gserviceaccount.com",
	}
	k.JSON, err = json.MarshalIndent(map[string]string{
		"type":                        "service_account",
		"project_id":                  project,
		"private_key_id":              k.PrivateKeyID,
		"private_key":                 pemKey,
		"client_email":                k.ClientEmail,
		"client_id":                   "104242424242424242424",
		"auth_uri":                    s.srv.URL + "/auth",
		"token_uri":                   s.srv.URL + "/token",
		"auth_provider_x509_cert_url": s.srv.URL + "/certs",
		"universe_domain":             "googleapis.com",
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.auth = &saAuth{email: k.ClientEmail, key: &priv.PublicKey}
	s.mu.Unlock()
	return k, nil
}

// IssuedTokens returns the access tokens the token endpoint handed out.
func (s *Server) IssuedTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.tokens {
		out = append(out, t)
	}
	return out
}

func (s *Server) checkAuth(r *http.Request) *Fault {
	s.mu.Lock()
	auth := s.auth
	s.mu.Unlock()
	h := r.Header.Get("Authorization")
	if auth == nil {
		if h != "" {
			s.violate("%s: Authorization header sent to a fake that expects none", r.URL.Path)
		}
		return nil
	}
	tok, ok := strings.CutPrefix(h, "Bearer ")
	s.mu.Lock()
	valid := ok && s.tokens[tok]
	s.mu.Unlock()
	if !valid {
		return &Fault{Code: 401, Reason: "required", Message: "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."}
	}
	return nil
}

// handleToken implements the OAuth 2.0 JWT-bearer grant (RFC 7523) as
// Google's token endpoint does for service-account keys.
func (s *Server) handleToken(r *http.Request, rec Request) (int, any, bool) {
	if pre, _ := s.takeFault("token", "token"); pre != nil {
		if pre.Drop {
			return 0, nil, true
		}
		if pre.Raw != nil {
			return faultCode(*pre), pre.Raw, false
		}
		return faultCode(*pre), []byte(`{"error":"internal_failure"}`), false
	}
	s.mu.Lock()
	auth := s.auth
	s.mu.Unlock()
	fail := func(msg string) (int, any, bool) {
		s.violate("token: %s", msg)
		return 400, map[string]any{"error": "invalid_grant", "error_description": msg}, false
	}
	if auth == nil {
		return fail("token endpoint called but no service account is configured")
	}
	form, err := url.ParseQuery(string(rec.RawBody))
	if err != nil {
		return fail("body is not form-encoded")
	}
	if g := form.Get("grant_type"); g != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		return fail(fmt.Sprintf("grant_type %q", g))
	}
	parts := strings.Split(form.Get("assertion"), ".")
	if len(parts) != 3 {
		return fail("assertion is not a JWT")
	}
	var header struct {
		Alg, Typ, Kid string
	}
	var claims struct {
		Iss, Scope, Aud string
		Exp, Iat        int64
	}
	if err := decodeSegment(parts[0], &header); err != nil {
		return fail("JWT header: " + err.Error())
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return fail("JWT claims: " + err.Error())
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fail("JWT signature encoding")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if header.Alg != "RS256" || rsa.VerifyPKCS1v15(auth.key, crypto.SHA256, digest[:], sig) != nil {
		return fail("JWT signature does not verify with the service account's key")
	}
	now := time.Now().Unix()
	switch {
	case claims.Iss != auth.email:
		return fail(fmt.Sprintf("iss %q is not the service account", claims.Iss))
	case claims.Aud != s.srv.URL+"/token":
		return fail(fmt.Sprintf("aud %q is not the token endpoint", claims.Aud))
	case !strings.Contains(" "+claims.Scope+" ", " "+bigqueryScope+" "):
		return fail(fmt.Sprintf("scope %q lacks BigQuery", claims.Scope))
	case claims.Exp < now || claims.Iat > now+60:
		return fail("assertion expired or from the future")
	}
	b := make([]byte, 24)
	rand.Read(b)
	tok := "ya29.fake-" + base64.RawURLEncoding.EncodeToString(b)
	s.mu.Lock()
	s.tokens[tok] = true
	s.mu.Unlock()
	return 200, map[string]any{"access_token": tok, "expires_in": 3599, "token_type": "Bearer"}, false
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

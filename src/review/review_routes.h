#pragma once
// The routes of `sift review` on sift's HTTP layer (serve/routes.h):
//
//   GET  /  /member?id=  /calibration      the pages (assets.h), /assets/<file> their CSS and JS
//   GET  /api/...  POST /api/review        the JSON API (review_api.h)
//   GET  /login  POST /login               with --api-key-file: a form taking the key, which
//                                          sets the session cookie and goes to /
//
// Who may ask: with --api-key-file, every route but /login needs a session cookie (HttpOnly,
// SameSite=Strict; each login's own random token, never the key: session_tokens.h) or
// "Authorization: Bearer <key>"; anything else is 401 (a page route shows the login form).
// Failed logins are limited (login_throttle.h): after 10 wrong keys in a row, at /login or
// as Bearer, every key is refused for a minute with 429 and Retry-After. A POST to /api/review
// also needs "X-CSRF-Token: <token>" (the token /api/session gives; another origin can
// neither read it nor send the header). Every response says Content-Security-Policy
// "default-src 'self'" without inline script, nosniff and no framing: a page shows data only
// as text (textContent), and a text holding <script> is text.
#include <optional>
#include <string>

#include "review/login_throttle.h"
#include "review/review_api.h"
#include "review/session_tokens.h"
#include "serve/api_key.h"
#include "serve/routes.h"

namespace sift::review {

class ReviewRoutes final : public serve::Routes {
 public:
  ReviewRoutes(ReviewApi& api, std::optional<serve::ApiKey> api_key);

  std::optional<serve::Reply> refusal(const Head& head, std::string_view client) const override;
  serve::Reply answer(const Request& request, std::string_view client) override;

 private:
  enum class Access { granted, denied, throttled };
  Access access(const Head& head, const std::string& client) const;
  serve::Reply login(const Request& request, const std::string& client);
  serve::Reply api(const Request& request, std::string_view path);

  ReviewApi& api_;
  std::optional<serve::ApiKey> api_key_;
  SessionTokens sessions_;
  mutable LoginThrottle throttle_;  // counts Bearer failures in refusal(), which is const
  std::string csrf_token_;          // random, for this run of the server
};

}  // namespace sift::review

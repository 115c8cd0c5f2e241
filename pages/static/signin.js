// @ts-check
// Sign-in for the pages that need a role (the dealer console, surveillance): a user and PIN form, the session cookie (auth.py).
// Every word from the catalog's [signin] section (words.js); a page's title is a catalog key or its own text.
import { el } from "./common.js";
import { t, tOr, translate } from "./words.js";

/**
 * A signed-in user as the display names them (auth.py).
 * @typedef {{user: string, role: string}} User
 */

/** @param {string} role */
const roleName = (role) => tOr(`signin.role_${role}`, role);
/** @param {string[]} roles */
const rolesText = (roles) => roles.map(roleName).join(t("signin.or"));

/**
 * The signed-in user, or null (a fetch that fails throws: the display is not up).
 * @returns {Promise<User | null>}
 */
export async function whoAmI() {
  const response = await fetch("/api/me", { credentials: "same-origin" });
  return response.ok ? response.json() : null;
}

export async function signOut() {
  await fetch("/api/signout", { method: "POST", credentials: "same-origin" });
}

// Show the sign-in form in `root` until a user whose role is one of `roles` signs in; resolves with {user, role}.
// The form carries `data-signin`; its error line `data-signin-error` shows the display's own reason.
/**
 * @param {HTMLElement} root
 * @param {string[]} roles
 * @param {string} [title] a catalog key or the page's own text
 * @returns {Promise<User>}
 */
export function signIn(root, roles, title = "common.sign_in") {
  return new Promise((resolve) => {
    root.replaceChildren();
    const form = el("form", "signin");
    form.dataset.signin = roles.join(" ");
    form.innerHTML = `<h1></h1>
      <label><span data-t="common.user"></span> <input name="user" autocomplete="username" autocapitalize="none" required></label>
      <label><span data-t="common.pin"></span> <input name="pin" type="password" inputmode="numeric" autocomplete="current-password" required></label>
      <button type="submit" data-t="common.sign_in"></button>
      <p class="error" data-signin-error role="alert" hidden></p>`;
    translate(form);
    const heading = /** @type {HTMLElement} */ (form.querySelector("h1"));
    heading.textContent = t("signin.title", { page: tOr(title, title), roles: rolesText(roles) });
    const error = /** @type {HTMLElement} */ (form.querySelector("[data-signin-error]"));
    const user = /** @type {HTMLInputElement} */ (form.elements.namedItem("user"));
    const pin = /** @type {HTMLInputElement} */ (form.elements.namedItem("pin"));
    /** @param {string} text */
    const fail = (text) => { error.textContent = text; error.hidden = false; };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = { user: user.value.trim(), pin: pin.value };
      pin.value = "";
      let response;
      try {
        response = await fetch("/api/signin", { method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
      } catch (exc) {
        fail(t("signin.unreachable", { why: String(exc) }));
        return;
      }
      const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      if (!response.ok) {
        fail(response.status === 401 ? t("signin.wrong_pin") : response.status === 429 ? t("signin.too_many")
          : t("signin.refused", { why: body.error || `HTTP ${response.status}` }));
        return;
      }
      if (!roles.includes(body.role)) {
        await signOut();
        fail(t("signin.wrong_role", { user: body.user, role: roleName(body.role), roles: rolesText(roles) }));
        return;
      }
      root.replaceChildren();
      resolve(body);
    });
    root.append(form);
    user.focus();
  });
}

/**
 * The signed-in user if their role is one of `roles`, else the form (above).
 * @param {HTMLElement} root
 * @param {string[]} roles
 * @param {string} title
 * @returns {Promise<User>}
 */
export async function ensureSignedIn(root, roles, title) {
  const me = await whoAmI();
  return me && roles.includes(me.role) ? me : signIn(root, roles, title);
}

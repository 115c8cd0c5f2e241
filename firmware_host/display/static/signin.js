// Sign-in for the pages that need a role (the dealer console, surveillance): a user and PIN form, the session cookie (auth.py).
// Its words are the catalog's ([signin], words.js); the display's own reasons (wrong user or PIN) are shown as it sends them.
import { t, tOr } from "/static/words.js";

const roleWord = (role) => tOr(`signin.role_${role}`, role);
const rolesWord = (roles) => roles.map(roleWord).join(t("signin.or"));

export async function whoAmI() {
  const response = await fetch("/api/me", { credentials: "same-origin" });
  return response.ok ? response.json() : null;
}

export async function signOut() {
  await fetch("/api/signout", { method: "POST", credentials: "same-origin" });
}

// Show the sign-in form in `root` until a user whose role is one of `roles` signs in; resolves with {user, role}.
// The form carries `data-signin`; its error line `data-signin-error` shows the display's own reason.
export function signIn(root, roles, title = "Sign in") {
  return new Promise((resolve) => {
    root.replaceChildren();
    const form = document.createElement("form");
    form.className = "signin";
    form.dataset.signin = roles.join(" ");
    form.innerHTML = `<h1></h1>
      <label><span data-t="common.user"></span> <input name="user" autocomplete="username" autocapitalize="none" required></label>
      <label><span data-t="common.pin"></span> <input name="pin" type="password" inputmode="numeric" autocomplete="current-password" required></label>
      <button type="submit" data-t="common.sign_in"></button>
      <p class="error" data-signin-error hidden></p>`;
    form.querySelector("h1").textContent = t("signin.title", { title, roles: rolesWord(roles) });
    for (const node of form.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
    const error = form.querySelector("[data-signin-error]");
    const fail = (text) => { error.textContent = text; error.hidden = false; };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = { user: form.elements.user.value.trim(), pin: form.elements.pin.value };
      form.elements.pin.value = "";
      let response;
      try {
        response = await fetch("/api/signin", { method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
      } catch (exc) {
        fail(t("signin.unreachable", { why: String(exc) }));
        return;
      }
      const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      if (!response.ok) { fail(body.error || `HTTP ${response.status}`); return; }
      if (!roles.includes(body.role)) {
        await signOut();
        fail(t("signin.wrong_role", { user: body.user, role: roleWord(body.role), roles: rolesWord(roles) }));
        return;
      }
      root.replaceChildren();
      resolve(body);
    });
    root.append(form);
    form.elements.user.focus();
  });
}

// The signed-in user if their role is one of `roles`, else the form (above).
export async function ensureSignedIn(root, roles, title) {
  const me = await whoAmI();
  return me && roles.includes(me.role) ? me : signIn(root, roles, title);
}

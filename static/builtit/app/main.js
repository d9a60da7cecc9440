// Site-wide, on every page: what failed is said, the person is asked in the
// page, fields and Copy buttons, preferences, the theme switch, the menu.
import { on } from "../events.js";
import "./toast.js";
import "./ask.js";
import "./fields.js";
import "./theme.js";

// A menu closes when a choice in it is made or the person clicks elsewhere.
on("click", (event) => {
  document.querySelectorAll("details.account-menu[open]").forEach((menu) => {
    if (!menu.contains(event.target) || event.target.closest("a")) menu.removeAttribute("open");
  });
});

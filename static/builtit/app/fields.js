// Small things fields and buttons do anywhere: a field cut short shows its
// whole text on hover; a Copy button copies its element's text.
import { on } from "../events.js";
import { toast } from "./toast.js";

// A field cut short by its width shows its whole text on hover (data-title-is-value).
on("input", (event) => {
  const field = event.target;
  if (field.matches && field.matches("input[data-title-is-value]")) field.title = field.value || field.placeholder;
});
// A picker's choice can be renamed while the page is open (a conversation's title).
on("mouseover", (event) => {
  const picker = event.target.closest && event.target.closest("select[data-title-is-value]");
  if (picker && picker.selectedOptions[0]) picker.title = picker.selectedOptions[0].textContent;
});

// A Copy button (data-copy-from: the id of the element whose text it copies)
// says on itself that it copied, for a moment.
on("click", (event) => {
  const button = event.target.closest("button[data-copy-from]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copyFrom);
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = "Copy"; }, 2000);
  }, () => toast("Could not copy: select the text and copy it by hand."));
});

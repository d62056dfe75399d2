// The match card (templates/admin/leagues/match/card.html): Enter in any row saves the card, as in a form of
// text fields only (a select swallows Enter otherwise), so a card is typed without leaving the keyboard.
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("card-form");
  const save = form && form.querySelector("input[name=_save]");
  if (!save) return;
  form.querySelector("#card-boards").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit(save);
    }
  });
});

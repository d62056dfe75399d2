// House rule 8 (phones: the table first): a <details data-fold-on-phone open> folds on a narrow screen, so its
// filters take one line above the results; on a desk, or without JavaScript, it stays open. Runs where it is
// included, right after the <details>, so a phone never paints it open first.
(function () {
  if (!window.matchMedia("(max-width: 40rem)").matches) return;
  document.querySelectorAll("details[data-fold-on-phone]").forEach(function (details) {
    details.open = false;
  });
})();

// Optional: the left and right arrow keys step through a board's moves
// (the links they follow work without this script).
document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  var rel = event.key === "ArrowLeft" ? "prev" : event.key === "ArrowRight" ? "next" : null;
  if (!rel) return;
  var link = document.querySelector('nav.step a[rel="' + rel + '"]');
  if (link) window.location.href = link.href;
});

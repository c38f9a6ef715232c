// chapter 4.2.2 examples
foo.src = "/images/welcome.gif";
bar.load("/docs/welcome.html");
foo.src = dir + "/images/welcome-expr.gif";
foo.src = "/images/start-expr-" + n + ".gif";
baz.src = '/images/single.png';
var list = ["img/one.jpg", "img/two.jpg"];
var obj = {icon: "img/icon.ico", page: 'pages/p.php?id=1'};
var t = cond ? "a.html" : "b.html";
x.src += "plus-equals.gif";
if (location.href == "compare.html") {}
var u = "https://www.example.com/abs/path";
var v = "HTTP://www.example.com/upper";
var esc = "img\/escaped\x2egif";
var tpl = `tpl/${name}.png`;
var tpl2 = `tpl/static.png`;
var re = /"in-regex.gif"/g;
var div = a / 2; var s2 = "after-division.gif";
var notlinks = ["text/html", "image.gif is nice", ".gif", "1.2.3", "mailto:x@y.gif", "a.unknownext"];
document.write('<img src="written.gif">');
var ml = "multi" +
  "line.gif";
var asi = "no-semicolon.css"
var last = "end-of-file.js"

// Compiled with: javac --release 8 -d . Clock.java (testdata for lib/links Class)
import com.example.Hands;

public class Clock {
    static final String FACE = "images/face.gif";
    String help = "http://www.example.com/clock/help.html";
    String dir = "snd";
    Hands hands = new Hands();
    java.util.List<String> names = new java.util.ArrayList<String>();
    Hands[] spares = new Hands[2];

    String tick() { return dir + "/tick.au"; }
    String label() { return "Clock face"; }
}

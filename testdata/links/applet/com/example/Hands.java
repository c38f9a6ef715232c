package com.example;

public class Hands {
    public String image = "../../images/hands.png";
}

"""The Pi daemon that joins the mat, the dice camera and the LEDs to the rules daemon over MQTT."""

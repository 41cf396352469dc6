// The app loop lands here.

"""BFCL's multi-turn functions as HoloDeck function tools, one function a method (written by
`holodeck-lsp import bfcl`; regenerate rather than edit). Each call runs on the current test
case's own instances of BFCL's classes (bfcl_state.py says how a call finds them) and returns
the result as BFCL's checker records it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


def _load_state() -> Any:
    """bfcl_state.py as a module private to this folder (shared with bfcl_grader.py)."""
    path = Path(__file__).resolve().with_name("bfcl_state.py")
    unique = f"_bfcl_state_{abs(hash(path.parent)):x}"
    if unique not in sys.modules:
        spec = importlib.util.spec_from_file_location(unique, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
    return sys.modules[unique]


_call = _load_state().call


def cat(file_name: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Display the contents of a file of any extension from currrent directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.cat
    return _call("cat", {"file_name": file_name})


def cd(folder: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Change the current working directory to the specified folder."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.cd
    return _call("cd", {"folder": folder})


def cp(source: str, destination: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Copy a file or directory from one location to another.  If the destination is a directory, the source file or directory will be copied into the destination directory.  Both source and destination must be local to the current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.cp
    return _call("cp", {"source": source, "destination": destination})


def diff(file_name1: str, file_name2: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Compare two files of any extension line by line at the current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.diff
    return _call("diff", {"file_name1": file_name1, "file_name2": file_name2})


def du(human_readable: bool = False) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Estimate the disk usage of a directory and its contents."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.du
    return _call("du", {"human_readable": human_readable})


def echo(content: str, file_name: str = "None") -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Write content to a file at current directory or display it in the terminal."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.echo
    return _call("echo", {"content": content, "file_name": file_name})


def find(path: str = ".", name: str = "None") -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Find any file or directories under specific path that contain name in its file name.  This method searches for files of any extension and directories within a specified path that match the given name. If no name is provided, it returns all files and directories in the specified path and its subdirectories. Note: This method performs a recursive search through all subdirectories of the given path."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.find
    return _call("find", {"path": path, "name": name})


def grep(file_name: str, pattern: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Search for lines in a file of any extension at current directory that contain the specified pattern."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.grep
    return _call("grep", {"file_name": file_name, "pattern": pattern})


def ls(a: bool = False) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: List the contents of the current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.ls
    return _call("ls", {"a": a})


def mkdir(dir_name: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Create a new directory in the current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.mkdir
    return _call("mkdir", {"dir_name": dir_name})


def mv(source: str, destination: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Move a file or directory from one location to another."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.mv
    return _call("mv", {"source": source, "destination": destination})


def pwd() -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Return the current working directory path."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.pwd
    return _call("pwd", {})


def rm(file_name: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Remove a file or directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.rm
    return _call("rm", {"file_name": file_name})


def rmdir(dir_name: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Remove a directory at current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.rmdir
    return _call("rmdir", {"dir_name": dir_name})


def sort(file_name: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Sort the contents of a file line by line."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.sort
    return _call("sort", {"file_name": file_name})


def tail(file_name: str, lines: int = 10) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Display the last part of a file of any extension."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.tail
    return _call("tail", {"file_name": file_name, "lines": lines})


def touch(file_name: str) -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Create a new file of any extension in the current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.touch
    return _call("touch", {"file_name": file_name})


def wc(file_name: str, mode: str = "l") -> str:
    """This tool belongs to the Gorilla file system. It is a simple file system that allows users to perform basic file operations such as navigating directories, creating files and directories, reading and writing to files, etc. Tool description: Count the number of lines, words, and characters in a file of any extension from current directory."""
    # definition: bfcl_classes/gorilla_file_system.py GorillaFileSystem.wc
    return _call("wc", {"file_name": file_name, "mode": mode})


def absolute_value(number: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Calculate the absolute value of a number."""
    # definition: bfcl_classes/math_api.py MathAPI.absolute_value
    return _call("absolute_value", {"number": number})


def add(a: float, b: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Add two numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.add
    return _call("add", {"a": a, "b": b})


def divide(a: float, b: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Divide one number by another."""
    # definition: bfcl_classes/math_api.py MathAPI.divide
    return _call("divide", {"a": a, "b": b})


def imperial_si_conversion(value: float, unit_in: str, unit_out: str) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Convert a value between imperial and SI units."""
    # definition: bfcl_classes/math_api.py MathAPI.imperial_si_conversion
    return _call(
        "imperial_si_conversion", {"value": value, "unit_in": unit_in, "unit_out": unit_out}
    )


def logarithm(value: float, base: float, precision: int) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Compute the logarithm of a number with adjustable precision using mpmath."""
    # definition: bfcl_classes/math_api.py MathAPI.logarithm
    return _call("logarithm", {"value": value, "base": base, "precision": precision})


def max_value(numbers: list[Any]) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Find the maximum value in a list of numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.max_value
    return _call("max_value", {"numbers": numbers})


def mean(numbers: list[Any]) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Calculate the mean of a list of numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.mean
    return _call("mean", {"numbers": numbers})


def min_value(numbers: list[Any]) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Find the minimum value in a list of numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.min_value
    return _call("min_value", {"numbers": numbers})


def multiply(a: float, b: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Multiply two numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.multiply
    return _call("multiply", {"a": a, "b": b})


def percentage(part: float, whole: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Calculate the percentage of a part relative to a whole."""
    # definition: bfcl_classes/math_api.py MathAPI.percentage
    return _call("percentage", {"part": part, "whole": whole})


def power(base: float, exponent: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Raise a number to a power."""
    # definition: bfcl_classes/math_api.py MathAPI.power
    return _call("power", {"base": base, "exponent": exponent})


def round_number(number: float, decimal_places: int = 0) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Round a number to a specified number of decimal places."""
    # definition: bfcl_classes/math_api.py MathAPI.round_number
    return _call("round_number", {"number": number, "decimal_places": decimal_places})


def si_unit_conversion(value: float, unit_in: str, unit_out: str) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Convert a value from one SI unit to another."""
    # definition: bfcl_classes/math_api.py MathAPI.si_unit_conversion
    return _call("si_unit_conversion", {"value": value, "unit_in": unit_in, "unit_out": unit_out})


def square_root(number: float, precision: int) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Calculate the square root of a number with adjustable precision using the decimal module."""
    # definition: bfcl_classes/math_api.py MathAPI.square_root
    return _call("square_root", {"number": number, "precision": precision})


def standard_deviation(numbers: list[Any]) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Calculate the standard deviation of a list of numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.standard_deviation
    return _call("standard_deviation", {"numbers": numbers})


def subtract(a: float, b: float) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Subtract one number from another."""
    # definition: bfcl_classes/math_api.py MathAPI.subtract
    return _call("subtract", {"a": a, "b": b})


def sum_values(numbers: list[Any]) -> str:
    """This tool belongs to the Math API, which provides various mathematical operations. Tool description: Calculate the sum of a list of numbers."""
    # definition: bfcl_classes/math_api.py MathAPI.sum_values
    return _call("sum_values", {"numbers": numbers})


def authenticate_twitter(username: str, password: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Authenticate a user with username and password."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.authenticate_twitter
    return _call("authenticate_twitter", {"username": username, "password": password})


def comment(tweet_id: int, comment_content: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Comment on a tweet for the authenticated user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.comment
    return _call("comment", {"tweet_id": tweet_id, "comment_content": comment_content})


def follow_user(username_to_follow: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Follow a user for the authenticated user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.follow_user
    return _call("follow_user", {"username_to_follow": username_to_follow})


def get_tweet(tweet_id: int) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Retrieve a specific tweet."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.get_tweet
    return _call("get_tweet", {"tweet_id": tweet_id})


def get_tweet_comments(tweet_id: int) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Retrieve all comments for a specific tweet."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.get_tweet_comments
    return _call("get_tweet_comments", {"tweet_id": tweet_id})


def get_user_stats(username: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Get statistics for a specific user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.get_user_stats
    return _call("get_user_stats", {"username": username})


def get_user_tweets(username: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Retrieve all tweets from a specific user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.get_user_tweets
    return _call("get_user_tweets", {"username": username})


def list_all_following() -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: List all users that the authenticated user is following."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.list_all_following
    return _call("list_all_following", {})


def mention(tweet_id: int, mentioned_usernames: list[Any]) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Mention specified users in a tweet."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.mention
    return _call("mention", {"tweet_id": tweet_id, "mentioned_usernames": mentioned_usernames})


def post_tweet(content: str, tags: list[Any] = [], mentions: list[Any] = []) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Post a tweet for the authenticated user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.post_tweet
    return _call("post_tweet", {"content": content, "tags": tags, "mentions": mentions})


def posting_get_login_status() -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Get the login status of the current user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.posting_get_login_status
    return _call("posting_get_login_status", {})


def retweet(tweet_id: int) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Retweet a tweet for the authenticated user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.retweet
    return _call("retweet", {"tweet_id": tweet_id})


def search_tweets(keyword: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Search for tweets containing a specific keyword."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.search_tweets
    return _call("search_tweets", {"keyword": keyword})


def unfollow_user(username_to_unfollow: str) -> str:
    """This tool belongs to the TwitterAPI, which provides core functionality for posting tweets, retweeting, commenting, and following users on Twitter. Tool description: Unfollow a user for the authenticated user."""
    # definition: bfcl_classes/posting_api.py TwitterAPI.unfollow_user
    return _call("unfollow_user", {"username_to_unfollow": username_to_unfollow})
